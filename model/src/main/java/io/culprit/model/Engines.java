package io.culprit.model;

import java.util.List;
import java.util.Optional;

/**
 * Library objects that are cheap to construct and dear to use cold: each instance keeps its own
 * caches of what it parses or introspects (templates and their expressions, the mappings between
 * two types, serializers), so one built per request does all of that again on every request while
 * its constructor barely shows. The agent's construction probe counts their constructions; the
 * diagnosis weighs the library's CPU under the code that builds them. Keyed to libraries only.
 * Measured on a Spring Boot service (session 37): a new TemplateEngine per request served 204
 * requests/s against 1,180 with one engine, a new ModelMapper 726 against 2,656, and neither
 * constructor held 1 % of the CPU samples.
 */
public final class Engines {

    /**
     * One engine: its type (subclasses' constructors run it too), what its caches hold, and the
     * packages its work runs in (the library's own and the parsers it drives).
     */
    public static final class Engine {
        public final String type;
        public final String library;
        public final String caches;
        /**
         * The finding its cold work also shows as (a rule id: serialization-cpu for a serializer,
         * validation-cpu for a validator), or null.
         */
        public final String shows;
        /**
         * What the application builds and should share, as it knows it: the type's simple name, or the
         * API it reaches the implementation through (a ValidatorFactory, not Hibernate's ValidatorFactoryImpl).
         */
        public final String shared;
        private final List<String> packages;

        Engine(String type, String library, String caches, List<String> packages) {
            this(type, library, caches, packages, null, null);
        }

        Engine(String type, String library, String caches, List<String> packages, String shows, String shared) {
            this.type = type;
            this.library = library;
            this.caches = caches;
            this.packages = packages;
            this.shows = shows;
            this.shared = shared != null ? shared : type.substring(type.lastIndexOf('.') + 1);
        }

        /** Whether {@code frame} runs in this engine's library. */
        public boolean runs(String frame) {
            for (String p : packages) if (frame.startsWith(p)) return true;
            return false;
        }
    }

    public static final List<Engine> ALL = List.of(
            new Engine("org.thymeleaf.TemplateEngine", "Thymeleaf",
                    "its dialects' configuration and the templates and expressions it has parsed",
                    List.of("org.thymeleaf.", "ognl.", "org.attoparser.", "org.unbescape.")),
            new Engine("org.modelmapper.ModelMapper", "ModelMapper",
                    "the type maps it introspects for each pair of source and destination types",
                    List.of("org.modelmapper.")),
            new Engine("com.google.gson.Gson", "Gson",
                    "the type adapters it builds by reflection for each class", List.of("com.google.gson."), "serialization-cpu", null),
            new Engine("freemarker.template.Configuration", "FreeMarker",
                    "the templates it has loaded and parsed", List.of("freemarker.")),
            new Engine("org.apache.velocity.app.VelocityEngine", "Velocity",
                    "its resource loaders and the templates it has parsed", List.of("org.apache.velocity.")),
            new Engine("com.github.mustachejava.DefaultMustacheFactory", "Mustache.java",
                    "the templates it has compiled", List.of("com.github.mustachejava.")),
            new Engine("com.github.dozermapper.core.DozerBeanMapper", "Dozer",
                    "the class mappings it introspects", List.of("com.github.dozermapper.")),
            new Engine("ma.glasnost.orika.impl.DefaultMapperFactory", "Orika",
                    "the mappers it generates as classes", List.of("ma.glasnost.orika.")),
            // A ValidatorFactory introspects each bean class's constraints once, on its first validation
            // (BeanMetaDataManagerImpl.createBeanMetaData); a blind Dropwizard service (session 45) built
            // one per request (Validators.newValidator) and spent 60 % of its CPU there, under validate.
            new Engine("org.hibernate.validator.internal.engine.ValidatorFactoryImpl", "Hibernate Validator",
                    "the constraint metadata it introspects for each bean class",
                    List.of("org.hibernate.validator.", "com.fasterxml.classmate."), "validation-cpu",
                    "ValidatorFactory (Validation.buildDefaultValidatorFactory(), Dropwizard's Validators.newValidatorFactory()) or the Validator it gives"));

    private Engines() { }

    public static Optional<Engine> of(String type) {
        for (Engine e : ALL) if (e.type.equals(type)) return Optional.of(e);
        return Optional.empty();
    }
}
