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
    static final CallSite UNKNOWN = new CallSite("(unknown)", "(unknown)");

    final String caller;
    /** Up to {@link #PATH} frames of distinct classes, innermost first, joined by " ← ". */
    final String path;

    private CallSite(String caller, String path) {
        this.caller = caller;
        this.path = path;
    }

    /** The call site of the dependency call running on this thread now. */
    static CallSite here() {
        List<String> app = WALKER.walk(frames -> {
            List<String> out = new ArrayList<>(PATH);
            String lastClass = null;
            for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
                String c = f.getClassName();
                if (skipped(c) || c.equals(lastClass) || jdbc(f.getDeclaringClass())) continue;
                lastClass = c;
                out.add(c + "." + f.getMethodName() + ":" + f.getLineNumber());
                if (out.size() == PATH) break;
            }
            return out;
        });
        return app.isEmpty() ? UNKNOWN : new CallSite(app.get(0), String.join(" ← ", app));
    }

    /** {@code java.sql.Wrapper}, or null in a runtime image without the java.sql module. */
    private static final Class<?> WRAPPER = wrapper();

    private static Class<?> wrapper() {
        try {
            return Class.forName("java.sql.Wrapper", false, ClassLoader.getPlatformClassLoader());
        } catch (ClassNotFoundException | LinkageError noJdbc) {
            return null;
        }
    }

    private static boolean jdbc(Class<?> c) {
        return WRAPPER != null && WRAPPER.isAssignableFrom(c);
    }

    /**
     * The JDK, culprit's own agent, and the libraries between the application and the dependency;
     * in {@link #here} also every JDBC implementation ({@code java.sql.Wrapper}: connections,
     * statements, result sets), whichever pool or driver it is, as the SQL probe weaves them all.
     */
    static boolean skipped(String className) {
        return className.startsWith("java.") || className.startsWith("javax.") || className.startsWith("jdk.")
                || className.startsWith("sun.") || className.startsWith("com.sun.")
                || className.startsWith("io.culprit.agent.") || className.startsWith("io.culprit.bootstrap.")
                || className.startsWith("io.culprit.jfr.") || ClientLibraries.isClient(className);
    }
}
