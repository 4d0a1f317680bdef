package io.culprit.agent.probe;

import io.culprit.model.ClientLibraries;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a dependency call was decided: the application frames above the client libraries. Read
 * once per call target, when the probe first sees it (a stack walk is far too costly per call, and
 * a target, a statement's shape, is nearly always issued from one place). For a query repeated
 * in a loop the path shows the repository method and the loop around it.
 */
final class CallSite {
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    /**
     * Application frames kept: the method that made the call and the one that called it (for a
     * query in a loop, the repository method and the loop); further up is the web framework.
     */
    static final int PATH = 2;
    /**
     * Frames kept for the rules ({@link #stack}), past {@link #PATH}: a repository's shared helper
     * ({@code JdbiRepository.one}, called by every repository method) takes a frame of its own,
     * and the loop is then two frames out or more (blind round 21).
     */
    static final int STACK = 6;
    static final CallSite UNKNOWN = new CallSite("(unknown)", "(unknown)", null, false, null, null);

    final String caller;
    /** Up to {@link #PATH} frames of distinct classes, innermost first, joined by " ← ". */
    final String path;
    /**
     * Up to {@link #STACK} frames from the call site out: the path's, and past the call site the
     * other methods of a class as well (the path keeps one frame per class), and frames beyond
     * the path's two (the web framework's among them); null when that is no more than the path.
     */
    final String stack;
    /**
     * Made by a scheduled task and not inside a request (a cache reloaded every 200 ms by
     * {@code @Scheduled}): its time is no request's, though it shares their pool and database.
     * Read from the first call's stack, as the rest of the site is.
     */
    final boolean background;
    /**
     * A proxied annotation on the way here that no proxy applied ({@link ProxyBypass}): "@Cacheable
     * a.B.m:12 called from a.B.n:30", when the call runs inside a cached method called on {@code this}; else null.
     */
    final String bypass;
    /**
     * A statement the driver ran to answer {@code java.sql.DatabaseMetaData} (the catalog: tables,
     * columns, keys): the library method the application called that asked for it
     * ({@code org.springframework.jdbc.core.simple.SimpleJdbcInsert.executeAndReturnKey}), or the
     * metadata method itself when the application asked directly; else null.
     */
    final String catalogVia;

    private CallSite(String caller, String path, String stack, boolean background, String bypass, String catalogVia) {
        this.caller = caller;
        this.path = path;
        this.stack = stack;
        this.background = background;
        this.bypass = bypass;
        this.catalogVia = catalogVia;
    }

    /** The call site of the dependency call running on this thread now. */
    static CallSite here() {
        return walk(f -> jdbc(f.getDeclaringClass()));
    }

    /** Where this thread called into {@code type}: its own frames and its supertypes' are passed over as the libraries' are. */
    static CallSite outside(Class<?> type) {
        return walk(f -> f.getDeclaringClass().isAssignableFrom(type));
    }

    private static CallSite walk(java.util.function.Predicate<StackWalker.StackFrame> passedOver) {
        boolean[] scheduled = {false, false};  // {a scheduler's frame, a request's}
        int[] committing = {0};  // 1: inside a transaction's commit, 2: its method taken
        ProxyBypass.Scan bypass = new ProxyBypass.Scan();
        String[] catalog = {null, null};  // {the metadata frame, the frame just inside the application's}
        List<String> deep = new ArrayList<>(STACK);
        String[] routed = {null};  // the innermost route engine's frame, in case no application frame is above it
        List<String> app = WALKER.walk(frames -> {
            List<String> out = new ArrayList<>(PATH);
            String lastClass = null, inner = null;
            for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
                String c = f.getClassName();
                if (out.isEmpty() && catalog[0] == null && metadata(f.getDeclaringClass())) catalog[0] = c + "." + f.getMethodName();
                if (SCHEDULERS.contains(c)) scheduled[0] = true;
                if (REQUEST_ENTRIES.contains(c)) scheduled[1] = true;
                boolean skipped = skipped(c);
                if (routed[0] == null && out.isEmpty() && routeEngine(c)) routed[0] = frame(f);
                bypass.accept(f, skipped);
                if (out.isEmpty() && committing[0] == 0 && c.equals(TX_ASPECT) && f.getMethodName().equals("commitTransactionAfterReturning")) {
                    committing[0] = 1;
                }
                String proxied = committing[0] == 1 && out.isEmpty() ? proxiedClass(c) : null;
                if (proxied != null) {
                    // Flushed at the commit of a @Transactional method that has returned: the
                    // statement is that method's, and its proxy's frame is all the stack keeps of it.
                    committing[0] = 2;
                    lastClass = proxied;
                    out.add(proxied + "." + f.getMethodName());
                    deep.add(out.get(0));
                    continue;
                }
                if (!out.isEmpty() && c.equals(lastClass) && out.get(out.size() - 1).endsWith(":-1") && f.getLineNumber() >= 0) {
                    // A method with no line table in the application's class is one a bytecode enhancer
                    // added (Panache's count/find/list in a repository): the class's own method that called it is the site.
                    int at = deep.lastIndexOf(out.get(out.size() - 1));
                    out.set(out.size() - 1, frame(f));
                    if (at >= 0) deep.set(at, out.get(out.size() - 1));
                    continue;
                }
                if (out.size() == PATH || skipped || c.equals(lastClass) || passedOver.test(f)) {
                    if (out.isEmpty() && !c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("io.culprit.")) inner = c + "." + f.getMethodName();
                    // Past the call site the stack keeps the class's other methods too: a loop in the
                    // repository's own class around its finder is the loop.
                    else if (!out.isEmpty() && deep.size() < STACK && !skipped && !passedOver.test(f) && !sameMethod(deep, f)) deep.add(frame(f));
                    continue;
                }
                if (out.isEmpty()) catalog[1] = inner;
                lastClass = c;
                out.add(frame(f));
                if (deep.size() < STACK) deep.add(out.get(out.size() - 1));
            }
            return out;
        });
        boolean background = scheduled[0] && !scheduled[1];
        String via = catalog[0] == null ? null : catalog[1] != null ? catalog[1] : catalog[0];
        if (app.isEmpty() && routed[0] != null) return new CallSite(routed[0], routed[0], null, background, bypass.result(), via);
        if (app.isEmpty()) return new CallSite(UNKNOWN.caller, UNKNOWN.path, null, background, bypass.result(), via);
        return new CallSite(app.get(0), String.join(" ← ", app), deep.size() > app.size() ? String.join(" ← ", deep) : null,
                background, bypass.result(), via);
    }

    private static String frame(StackWalker.StackFrame f) {
        return f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber();
    }

    /** Whether {@code f} is the same method as the last frame kept (recursion, or an overload's delegation). */
    private static boolean sameMethod(List<String> kept, StackWalker.StackFrame f) {
        if (kept.isEmpty()) return false;
        String last = kept.get(kept.size() - 1);
        String method = f.getClassName() + "." + f.getMethodName();
        return last.startsWith(method) && last.length() > method.length() && last.charAt(method.length()) == ':';
    }

    /** Classes whose frames run a scheduled task: the JDK's scheduled executors and Timer, Spring's and Quartz's jobs. */
    static final java.util.Set<String> SCHEDULERS = java.util.Set.of(
            "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask", "java.util.TimerThread",
            "org.springframework.scheduling.support.ScheduledMethodRunnable", "org.quartz.core.JobRunShell");
    /** A request's entry into the server, which a task run inside one (CallerRuns, a request-scoped timer) still has below it. */
    static final java.util.Set<String> REQUEST_ENTRIES = java.util.Set.of(
            "org.apache.catalina.connector.CoyoteAdapter", "jakarta.servlet.http.HttpServlet", "javax.servlet.http.HttpServlet",
            "org.eclipse.jetty.server.Server", "io.undertow.server.Connectors");

    /** Where Spring commits a {@code @Transactional} method's transaction after it returned. */
    static final String TX_ASPECT = "org.springframework.transaction.interceptor.TransactionAspectSupport";

    /** {@code a.B$$SpringCGLIB$$0} (Spring 6) or {@code a.B$$EnhancerBySpringCGLIB$$1f2e} (5) → {@code a.B}; else null. */
    static String proxiedClass(String className) {
        int at = className.indexOf("$$SpringCGLIB$$");
        if (at < 0) at = className.indexOf("$$EnhancerBySpringCGLIB$$");
        return at > 0 ? className.substring(0, at) : null;
    }

    /** {@code java.sql.Wrapper}, or null in a runtime image without the java.sql module. */
    private static final Class<?> WRAPPER = sqlType("java.sql.Wrapper");

    private static Class<?> sqlType(String name) {
        try {
            return Class.forName(name, false, ClassLoader.getPlatformClassLoader());
        } catch (ClassNotFoundException | LinkageError noJdbc) {
            return null;
        }
    }

    /** {@code java.sql.DatabaseMetaData}, or null in a runtime image without the java.sql module. */
    private static final Class<?> METADATA = sqlType("java.sql.DatabaseMetaData");

    private static boolean metadata(Class<?> c) {
        return METADATA != null && METADATA.isAssignableFrom(c);
    }

    private static boolean jdbc(Class<?> c) {
        return WRAPPER != null && WRAPPER.isAssignableFrom(c);
    }

    /**
     * The JDK, Jakarta EE's APIs, culprit's own agent, the libraries between the application and the
     * dependency, and the servlet containers;
     * in {@link #here} also every JDBC implementation ({@code java.sql.Wrapper}: connections,
     * statements, result sets), whichever pool or driver it is, as the SQL probe weaves them all.
     */
    static boolean skipped(String className) {
        return className.startsWith("java.") || className.startsWith("javax.") || className.startsWith("jakarta.") || className.startsWith("jdk.")
                || className.startsWith("sun.") || className.startsWith("com.sun.")
                || className.startsWith("io.culprit.agent.") || className.startsWith("io.culprit.bootstrap.")
                || className.startsWith("io.culprit.jfr.") || ClientLibraries.isClient(className) || server(className)
                || routeEngine(className) || generated(className);
    }

    /**
     * An integration framework's route engine (Apache Camel): a route's {@code to("sql:…")} inside a
     * split runs in the framework's producers and processors, whose frames would name every call
     * its routes make (a blind Camel service's N+1 read {@code SqlProducer$1.doInPreparedStatement}).
     * The application frame above them, the code that sent the message into the route, is the call
     * site; when none is (a route fed by a timer or Camel's own HTTP consumer), the route engine's
     * innermost frame still is.
     */
    private static boolean routeEngine(String className) {
        return className.startsWith("org.apache.camel.");
    }

    /**
     * Classes a framework generates around the application's own: Micronaut's AOP subclasses
     * ({@code $PartnerClient$Intercepted}, which implement a declarative client's interface; {@code $X$Definition$Exec},
     * which dispatches to a bean's method) and
     * CGLIB's and Byte Buddy's ({@code $$}), JDK proxies, Quarkus ArC's interceptor subclasses and client
     * proxies ({@code X_Subclass}, its interceptor chain's {@code X_Subclass$0}, {@code X_ClientProxy}): the application method that called into
     * one is the call site.
     */
    private static boolean generated(String className) {
        return className.contains("$Intercepted") || className.contains("$Definition$") || className.contains("$$") || className.startsWith("jdk.proxy")
                || className.contains("$Proxy") || className.endsWith("_Subclass")
                || className.contains("_Subclass$") || className.endsWith("_ClientProxy");
    }

    /**
     * The servers' own frames, below a controller that calls a client directly: not a call site's
     * caller. Vert.x's core and Web router too: a handler's next step runs inside its futures'
     * composition, whose frame would otherwise name every call a Vert.x service makes. Helidon's
     * WebServer (its routing and filters run every handler), and Micronaut (its server, its
     * executors and reactive plumbing, its AOP interceptors around the application's beans); Quarkus
     * (its runtime, ArC's interceptors, RESTEasy Reactive's handler chain, SmallRye's context and Mutiny).
     */
    private static boolean server(String className) {
        return className.startsWith("org.apache.catalina.") || className.startsWith("org.apache.coyote.")
                || className.startsWith("org.apache.tomcat.") || className.startsWith("org.eclipse.jetty.")
                || className.startsWith("io.undertow.") || className.startsWith("io.vertx.core.") || className.startsWith("io.vertx.ext.web.")
                || className.startsWith("io.helidon.webserver.") || className.startsWith("io.micronaut.")
                || className.startsWith("io.quarkus.") || className.startsWith("org.jboss.resteasy.reactive.") || className.startsWith("io.smallrye.");
    }
}
