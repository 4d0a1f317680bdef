package io.culprit.diagnosis;

import java.util.List;

/**
 * Stack-frame helpers. A finding names the first frame that is not the JDK's: that is where a
 * fix can be made (the library or application code that drives the JDK into the costly path).
 */
public final class Frames {
    private static final String[] JDK = {"java.", "javax.", "jdk.", "sun.", "com.sun."};

    /**
     * Frames that load classes or look up resources and services: a lock taken inside them is the
     * class loader's (parallel-capable loaders lock per class name, fat-jar loaders per jar), and
     * CPU spent in them is lookup cost, whoever asked for it.
     */
    private static final String[] LOOKUP = {
        ".loadClass", ".findClass", "ServiceLoader", ".getResource", ".getNextJarEntry", "ZipFile", "JarFile",
        "getClassLoadingLock", "URLClassPath",
        // Reading a resource's stream out of a jar (inflating it): the JDK's jar: URLs and Spring Boot's nested jars
        // (a service outside the lab read a template from its own jar per request: 33 % of CPU samples inflating it).
        "JarURLConnection", "JarUrlConnection", "org.springframework.boot.loader.net.protocol.jar.LazyDelegatingInputStream"
    };

    /**
     * Frameworks, containers, clients and infrastructure: code a service runs but did not write.
     * Everything else outside the JDK is taken for the application's own (its package is not
     * known to culprit, so the list names what it is not).
     */
    private static final String[] FRAMEWORK = {
        "org.springframework.", "org.apache.", "com.fasterxml.", "tools.jackson.", "ch.qos.", "org.slf4j.", "io.netty.", "reactor.",
        "com.zaxxer.", "org.hibernate.", "jakarta.", "org.h2.", "org.postgresql.", "com.mysql.", "org.mariadb.", "oracle.",
        "com.microsoft.", "io.micrometer.", "io.undertow.", "org.eclipse.", "org.glassfish.", "com.google.", "io.lettuce.",
        "redis.clients.", "okhttp3.", "okio.", "kotlin.", "kotlinx.", "scala.", "org.aspectj.", "net.bytebuddy.",
        "io.opentelemetry.", "brave.", "com.netflix.", "org.jboss.", "io.grpc.", "org.thymeleaf.", "org.yaml.",
        "org.HdrHistogram.", "io.culprit.agent.", "io.culprit.bootstrap.", "io.culprit.jfr.", "io.culprit.model.", "io.swagger.", "org.mybatis.", "org.jooq.",
        "com.github.benmanes.", "org.ehcache.", "io.github.resilience4j.", "feign.", "io.vertx.", "io.quarkus.",
        "io.micronaut.", "org.bouncycastle.", "com.sun.", "io.projectreactor.", "org.reactivestreams.", "org.jdbi.",
        "org.hsqldb.", "org.sqlite.", "com.querydsl.", "io.ebean.", "org.redisson.", "org.junit.", "org.flywaydb.",
        "org.liquibase.", "liquibase.", "org.xml.", "org.w3c.", "org.json.", "org.objectweb.", "groovy.", "org.codehaus.",
        "rx.", "io.reactivex.", "com.rabbitmq.", "com.mongodb.", "org.bson.", "io.nats.", "co.elastic.", "org.elasticsearch.",
        "org.opensearch.", "com.datastax.", "software.amazon.", "com.amazonaws.", "io.confluent.", "com.hazelcast.",
        "org.infinispan.", "net.spy.memcached.", "com.couchbase.", "org.neo4j.", "io.r2dbc.",
        "com.github.pagehelper.", "com.baomidou.", "tk.mybatis.", "com.alibaba.", "io.smallrye.", "io.agroal.", "com.arjuna.",
        "io.helidon.", "io.dropwizard.", "com.codahale.", "io.javalin.", "com.linecorp.armeria.", "io.ktor.", "spark.",
        "io.jooby.", "akka.", "com.typesafe.", "play.api.", "play.core.", "play.mvc.", "org.jvnet.", "javassist.",
        "net.sf.ehcache.", "com.esotericsoftware."
    };

    /** culprit's own code in the target, never the application's, whatever package the application has. */
    private static final String[] CULPRIT = {"io.culprit.agent.", "io.culprit.bootstrap.", "io.culprit.jfr.", "io.culprit.model."};

    /**
     * The application's own package prefixes while the rules judge a case whose agent recorded them
     * ({@link #withApplication}); null otherwise, and the rules fall back to {@link #FRAMEWORK}. A
     * thread-local rather than a parameter: a case is judged on one thread, and the rules ask
     * "is this the application's?" from some thirty places.
     */
    private static final ThreadLocal<String[]> APPLICATION = new ThreadLocal<>();

    private Frames() { }

    /**
     * Runs {@code body} with the application's own packages as the case's agent found them (its
     * {@code appPackages}, comma-separated; blank for none): from then on a frame is the
     * application's only inside one of them (see {@link #applicationPrefixes}).
     */
    public static <T> T withApplication(String appPackages, java.util.function.Supplier<T> body) {
        String[] before = APPLICATION.get();
        String[] prefixes = applicationPrefixes(appPackages);
        APPLICATION.set(prefixes.length == 0 ? null : prefixes);
        try {
            return body.get();
        } finally {
            APPLICATION.set(before);
        }
    }

    /**
     * Each recorded package widened to its organisation's root ({@code com.acme.shop.web} →
     * {@code com.acme.}), so that the company's other modules, which come as jars, count as its own
     * too; kept whole when that root is also a library's ({@code org.springframework.samples.petclinic.},
     * {@code io.culprit.lab.}, {@code com.github.someone.tool.}), or when it has a single name.
     * Known libraries' packages are left out when the list has others: agents before session 45
     * recorded every package of a shaded jar (Jersey, Jetty, Jackson beside {@code com.acme.depot}).
     */
    static String[] applicationPrefixes(String appPackages) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        if (appPackages == null) return new String[0];
        boolean ownToo = false;
        for (String p : appPackages.split(",")) ownToo |= !p.trim().isEmpty() && !knownPackage(p.trim() + ".");
        for (String p : appPackages.split(",")) {
            p = p.trim();
            if (p.isEmpty() || ownToo && knownPackage(p + ".")) continue;
            int a = p.indexOf('.'), b = a < 0 ? -1 : p.indexOf('.', a + 1);
            String root = (b < 0 ? p : p.substring(0, b)) + ".";
            boolean shared = root.equals(p + ".") || root.startsWith("com.github.") || root.startsWith("io.github.");
            for (String lib : FRAMEWORK) if (lib.startsWith(root) || root.startsWith(lib)) shared = true;
            for (String lib : JDK) if (root.startsWith(lib)) shared = true;
            out.add(shared ? p + "." : root);
        }
        return out.toArray(new String[0]);
    }

    /** Whether a package ({@code a.b.}) lies in a known library's or the JDK's. */
    private static boolean knownPackage(String pkg) {
        return startsWithAny(pkg, FRAMEWORK) || startsWithAny(pkg, JDK);
    }

    /**
     * A frame of the application's own code: not the JDK's, not generated (CGLIB {@code $$},
     * proxies, accessors, {@link #generatedAround}), not native ({@code libz.so.1}, {@code clock_gettime@@GLIBC_2.17},
     * {@code msort_with_tmp.part.0}, C++ {@code A::b}, {@code [unknown]}: a Java frame ends in a
     * method name, which starts with a letter, {@code _}, {@code $} or {@code <}); and in the
     * application's packages when the case records them, else not a framework's or library's (see
     * {@link #FRAMEWORK}).
     */
    public static boolean isApplication(String frame) {
        String f = stripLine(frame);
        int dot = f.lastIndexOf('.');
        if (dot <= 0 || dot == f.length() - 1 || isJdk(f) || f.startsWith("[") || f.contains("::") || f.contains("/")
                || f.contains("@") || f.contains(".so")) return false;
        char m = f.charAt(dot + 1);
        if (!Character.isJavaIdentifierStart(m) && m != '<') return false;
        if (f.contains("$$") || f.contains("$Proxy") || f.contains("GeneratedMethodAccessor") || generatedAround(f)) return false;
        if (startsWithAny(f, CULPRIT)) return false;
        String[] app = APPLICATION.get();
        if (app != null) return startsWithAny(f, app);
        for (String p : FRAMEWORK) if (f.startsWith(p)) return false;
        return true;
    }

    /**
     * A class a framework generates around a bean of the application's package, whose frames call
     * into the bean's own: Quarkus ArC's interceptor subclasses and client proxies
     * ({@code X_Subclass}, {@code X_ClientProxy}), Micronaut's {@code $X$Intercepted} and
     * {@code $X$Definition$Exec}.
     */
    private static boolean generatedAround(String frame) {
        int dot = frame.lastIndexOf('.');
        String type = dot < 0 ? frame : frame.substring(0, dot);
        return type.endsWith("_Subclass") || type.contains("_Subclass$") || type.endsWith("_ClientProxy") || type.endsWith("$Intercepted") || type.contains("$Definition$");
    }

    /** True for a class, resource or service lookup frame (see {@link #LOOKUP}). */
    public static boolean isLookup(String frame) {
        for (String p : LOOKUP) if (frame.contains(p)) return true;
        return false;
    }

    /**
     * Classes defined at run time: dynamic proxies, generated classes (CGLIB, Byte Buddy,
     * Javassist), compiled scripts and expressions. Built once, they cost nothing per request; built
     * per call, each defines a class, and a new class loader per call keeps the JDK's caches from
     * reusing it.
     */
    private static final String[] DEFINITION = {
        "java.lang.ClassLoader.defineClass", "java.lang.reflect.Proxy$ProxyBuilder", "java.lang.reflect.Proxy.getProxyConstructor",
        "java.lang.invoke.MethodHandles$Lookup.defineClass", "java.lang.invoke.MethodHandles$Lookup.defineHiddenClass",
        "jdk.internal.misc.Unsafe.defineClass", "java.security.SecureClassLoader.defineClass",
        // The generators, not the generated classes' calls (a CGLIB proxy's MethodProxy.invoke runs on every call).
        "org.springframework.cglib.proxy.Enhancer", "org.springframework.cglib.core.AbstractClassGenerator", "net.sf.cglib.proxy.Enhancer",
        "net.sf.cglib.core.AbstractClassGenerator", "javassist.ClassPool", "javassist.CtClass.toClass", "javassist.util.proxy.ProxyFactory.create",
        "net.bytebuddy.ByteBuddy.", "net.bytebuddy.dynamic.", "groovy.lang.GroovyClassLoader", "org.codehaus.groovy.control.",
        "org.codehaus.janino."
    };

    /** True for a frame that defines a class at run time (see {@link #DEFINITION}). */
    public static boolean isDefinition(String frame) {
        return startsWithAny(frame, DEFINITION);
    }

    /** True when the stack passes through class or resource lookup. */
    public static boolean inLookup(List<String> stack) {
        for (String f : stack) if (isLookup(f)) return true;
        return false;
    }

    /**
     * The first frame that is neither the JDK's nor a lookup: for a lock taken while loading a
     * class, the code that asked for the class, not the (framework) class loader.
     */
    public static String firstCaller(List<String> stack) {
        boolean passedLookup = false;
        for (String f : stack) {
            if (isLookup(f)) passedLookup = true;
            else if (passedLookup && !isJdk(f) && !isLambdaClass(f) && !f.contains("ClassLoader")) return f;
        }
        return firstNonJdk(stack);
    }

    public static boolean isJdk(String frame) {
        for (String p : JDK) if (frame.startsWith(p)) return true;
        return false;
    }

    /** The first application frame of a stack, top first; null when none. */
    public static String firstApplication(List<String> stack) {
        for (String f : stack) if (isApplication(f)) return f;
        return null;
    }

    /**
     * Where the service called into a library that {@code site} belongs to: the first application
     * frame of {@code stack} when {@code site} is not the application's own (a parser's throw, a
     * message source's lookup), so the fix points at the service's call; null otherwise.
     */
    public static String applicationCaller(String site, List<String> stack) {
        return site == null || isApplication(site) ? null : firstApplication(stack);
    }

    /** First non-JDK frame that is not a lambda's class ({@link #isLambdaClass}), else the first frame, else null. */
    public static String firstNonJdk(List<String> stack) {
        for (String f : stack) if (!isJdk(f) && !isLambdaClass(f)) return f;
        return stack.isEmpty() ? null : stack.get(0);
    }

    /**
     * A frame of the class the JDK spins for a lambda or a method reference ({@code Svc$$Lambda$27+0x…apply} on
     * JDK 17, {@code Svc$$Lambda/0x…} on 21+): no line, no code of its own, and for a method reference
     * ({@code map(CompletableFuture::join)}) it calls the JDK directly. The method that wrote the lambda is
     * further down the stack: a blind service (session 46) read its waits "at RenewalQuoteService$$Lambda$2763…apply"
     * instead of RenewalQuoteService.compare:32.
     */
    public static boolean isLambdaClass(String frame) {
        return frame.contains("$$Lambda");
    }

    /**
     * The way into a stack's leaf, leaf first: the first non-JDK frame of each library (the first
     * two package names) on the way to the root, at most {@code max}, joined by " ← ". Generic
     * where the application's own package is unknown: {@code rx…get ← com.netflix…execute ←
     * com.acme.ProductController.product} shows the library and the code that called it.
     */
    public static String callPath(List<String> stack, int max) {
        StringBuilder out = new StringBuilder();
        String lastLib = null;
        int n = 0;
        for (String f : stack) {
            if (isJdk(f) || isLambdaClass(f) || !f.contains(".")) continue;
            String lib = library(f);
            if (lib.equals(lastLib)) continue;
            lastLib = lib;
            out.append(n == 0 ? "" : " ← ").append(f);
            if (++n == max) break;
        }
        return out.toString();
    }

    /** The first two package names of a frame: {@code org.springframework.beans.X.m} → {@code org.springframework}. */
    public static String library(String frame) {
        int a = frame.indexOf('.');
        int b = a < 0 ? -1 : frame.indexOf('.', a + 1);
        return b < 0 ? frame : frame.substring(0, b);
    }

    /** True when some frame belongs to {@code classOrFrame} (a class name, or a frame prefix). */
    public static boolean mentions(List<String> stack, String classOrFrame) {
        if (classOrFrame == null || classOrFrame.isEmpty()) return false;
        String cls = stripLine(classOrFrame);
        for (String f : stack) {
            String g = stripLine(f);
            if (g.equals(cls) || g.startsWith(cls + ".") || g.startsWith(cls + "$")) return true;
        }
        return false;
    }

    /** Whether the frame starts with one of {@code prefixes}: a package, a class or a method. */
    public static boolean startsWithAny(String frame, String... prefixes) {
        for (String p : prefixes) if (frame.startsWith(p)) return true;
        return false;
    }

    /**
     * The application frame nearest the root side of the first frame {@code first} accepts, in a
     * stack given root first, without its line: who called into that library. Null when the
     * stack has no such frame, or no application frame above it.
     */
    public static String applicationAbove(String[] rootFirst, java.util.function.Predicate<String> first) {
        String app = null;
        for (String f : rootFirst) {
            if (first.test(f)) return app == null ? null : stripLine(app);
            if (isApplication(f)) app = f;
        }
        return null;
    }

    /** Whether any frame of a stack starts with one of {@code prefixes}. */
    public static boolean anyStartsWith(String[] stack, String... prefixes) {
        for (String f : stack) if (startsWithAny(f, prefixes)) return true;
        return false;
    }

    /** Whether a stack has a frame of {@code method} ("pkg.Class.method", any line). */
    public static boolean hasMethod(String[] stack, String method) {
        for (String f : stack) if (stripLine(f).equals(method)) return true;
        return false;
    }

    /** A stack as tables keep it (leaf first) turned root first, as cpu profiles keep theirs. */
    public static String[] rootFirst(List<String> leafFirst) {
        String[] out = new String[leafFirst.size()];
        for (int i = 0; i < out.length; i++) out[i] = leafFirst.get(out.length - 1 - i);
        return out;
    }

    /**
     * The first frame {@code wanted} accepts below (leaf side of) the first frame {@code marker}
     * accepts, in a stack given root first: the task a scheduler runs, the loader a cache calls.
     * Null when there is no such frame.
     */
    public static String firstBelow(String[] rootFirst, java.util.function.Predicate<String> marker,
            java.util.function.Predicate<String> wanted) {
        boolean below = false;
        for (String f : rootFirst) {
            if (!below) below = marker.test(f);
            else if (wanted.test(f)) return f;
        }
        return null;
    }

    /** {@code a.B$1.m:42} → {@code a.B}: the top-level class a frame's code belongs to (its nested and anonymous classes folded in). */
    public static String topLevelClass(String frame) {
        String m = stripLine(frame);
        int dot = m.lastIndexOf('.');
        String c = dot > 0 ? m.substring(0, dot) : m;
        int nested = c.indexOf('$');
        return nested > 0 ? c.substring(0, nested) : c;
    }

    /** {@code a.B.m:42} → {@code a.B.m}; also {@code :-1}, the line of generated code (proxies). */
    public static String stripLine(String frame) {
        int colon = frame.lastIndexOf(':');
        String line = colon > 0 ? frame.substring(colon + 1) : "";
        if (line.startsWith("-")) line = line.substring(1);
        return colon > 0 && line.chars().allMatch(Character::isDigit) ? frame.substring(0, colon) : frame;
    }

    /**
     * A frame as a console command's {@code class method} pair, {@code a.B$1.m(int):42} →
     * {@code a.B$1 m}; null when it names no method.
     */
    public static String classAndMethod(String frame) {
        if (frame == null) return null;
        String m = stripLine(frame);
        int paren = m.indexOf('(');
        if (paren > 0) m = m.substring(0, paren);
        int dot = m.lastIndexOf('.');
        return dot > 0 ? m.substring(0, dot) + " " + m.substring(dot + 1) : null;
    }

    /** Simple class name plus method of a frame, for narrow columns: {@code a.b.C.m:1} → {@code C.m}. */
    public static String shortName(String frame) {
        if (frame == null) return null;
        String f = stripLine(frame);
        int m = f.lastIndexOf('.');
        if (m <= 0) return f;
        int c = f.lastIndexOf('.', m - 1);
        return f.substring(c + 1);
    }
}
