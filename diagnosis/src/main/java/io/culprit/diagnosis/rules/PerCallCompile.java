package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import java.util.Map;
import java.util.Optional;

/**
 * Text compiled again on every call that is meant to be compiled once: a JSON schema, an
 * expression (SpEL, MVEL, JEXL, Groovy), a JSON path, certificates and keys. The library hands back a compiled object to
 * keep, and the code throws it away. Read from the CPU profile alone (the construction probe
 * cannot see it: the compiled object is built deep in the library). Keyed to library APIs only.
 * Measured on a Spring Boot service (session 37): a schema built per request with networknt's
 * JsonSchemaFactory held 14 % of the CPU samples (1,716 requests/s against 3,169 with one schema);
 * five SpEL rules parsed per cart line 14 %, and the fresh expressions' method look-ups another
 * 16 % (341 against 1,515).
 */
final class PerCallCompile {

    /** A tenth of the CPU compiling the same text again: a WARN, as for the JDK's factories. */
    static final double SHARE_WARN = 0.1;

    enum Kind {
        JSON_SCHEMA("build a JSON schema from its text",
                "Build the schema once (a static final field or a singleton bean): a JsonSchema is thread-safe and"
                + " validates any number of documents; keep the factory too.",
                "com.networknt.schema.JsonSchemaFactory.getSchema", "com.networknt.schema.JsonSchemaFactory.getInstance",
                "org.everit.json.schema.loader.SchemaLoader.load", "com.github.fge.jsonschema.main.JsonSchemaFactory.getJsonSchema",
                "net.jimblackler.jsonschemafriend.SchemaStore.loadSchema"),
        // A fresh SpEL expression also resolves every method and property it calls again, by
        // reflection, on its first evaluation: an expression kept does that once.
        SPEL("parse SpEL expressions (and resolve their methods again on first evaluation)",
                "Parse each expression once and keep the Expression (a static final field, or a map by rule text):"
                + " an Expression is thread-safe, and one kept also keeps the methods and properties it resolved on"
                + " its first evaluation; with SpelCompilerMode.IMMEDIATE it is compiled to bytecode as well.",
                "org.springframework.expression.common.TemplateAwareExpressionParser.parseExpression",
                "org.springframework.expression.spel.standard.SpelExpressionParser.parseRaw",
                "org.springframework.expression.spel.ast.MethodReference.findAccessorForMethod",
                "org.springframework.expression.spel.support.ReflectiveMethodResolver.resolve",
                "org.springframework.expression.spel.ast.AstUtils.getPropertyAccessorsToTry",
                "org.springframework.expression.spel.ast.AccessorUtils.getAccessorsToTry"),
        SCRIPT("compile an expression or a script (MVEL, JEXL, Groovy)",
                "Compile each expression or script once and keep the compiled form (MVEL.compileExpression, JEXL's"
                + " createExpression or createScript, a parsed Groovy Script class), then run it per call with that"
                + " call's variables.",
                "org.mvel2.MVEL.eval", "org.mvel2.MVEL.compileExpression", "org.apache.commons.jexl3.internal.Engine.createExpression",
                "org.apache.commons.jexl3.internal.Engine.createScript", "groovy.lang.GroovyShell.parse", "groovy.lang.GroovyShell.evaluate"),
        JSON_PATH("compile a JsonPath", "Compile the path once (JsonPath.compile into a static final field) and read with it.",
                "com.jayway.jsonpath.JsonPath.compile"),
        // generateCertificates tries PKCS#7 first and throws a ParsingException per certificate before reading
        // X.509: a service re-reading an issuer's two-certificate chain for each of 8 tokens per request spent
        // 40 % of its CPU there, with 32 caught exceptions per request (1,002 requests/s against 2,533).
        CERTIFICATES("parse certificates or keys from their encoded form",
                "Parse the certificates and keys once (at start-up, or once per issuer in a map) and keep the"
                + " X509Certificate and PublicKey objects: they are immutable and safe to share. Verify each token"
                + " against the kept key; only a Signature object is needed per call.",
                "java.security.cert.CertificateFactory.generateCertificates", "java.security.cert.CertificateFactory.generateCertificate",
                "java.security.cert.CertificateFactory.generateCertPath", "java.security.cert.CertificateFactory.generateCRLs",
                "java.security.KeyFactory.generatePublic", "java.security.KeyFactory.generatePrivate", "java.security.KeyStore.load");

        final String what;
        final String fix;
        private final String[] frames;

        Kind(String what, String fix, String... frames) {
            this.what = what;
            this.fix = fix;
            this.frames = frames;
        }

        boolean matches(String frame) {
            String f = Frames.stripLine(frame);
            for (String p : frames) if (f.equals(p)) return true;
            return false;
        }
    }

    /** The kind holding the most CPU samples, its share, and the application frame that calls it most. */
    static final class Found {
        final Kind kind;
        final double share;
        final String caller;

        Found(Kind kind, double share, String caller) {
            this.kind = kind;
            this.share = share;
            this.caller = caller;
        }
    }

    private PerCallCompile() { }

    /** The per-call compilation holding at least {@link #SHARE_WARN} of the CPU samples, if any. */
    static Optional<Found> find(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty() || profile.get().samples() == 0) return Optional.empty();
        // Each sample counts once, for the first kind on its stack.
        Map<String, Long> byKind = profile.get().sumBy(stack -> {
            for (String f : stack) for (Kind k : Kind.values()) if (k.matches(f)) return k.name();
            return null;
        });
        Map.Entry<String, Long> top = CpuHotspotRule.top(byKind);
        if (top == null) return Optional.empty();
        double share = (double) top.getValue() / profile.get().samples();
        if (share < SHARE_WARN) return Optional.empty();
        Kind kind = Kind.valueOf(top.getKey());
        return Optional.of(new Found(kind, share, ev.cpuCaller(kind::matches)));
    }
}
