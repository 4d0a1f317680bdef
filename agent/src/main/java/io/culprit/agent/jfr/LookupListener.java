package io.culprit.agent.jfr;

import io.culprit.agent.instrument.Listener;
import io.culprit.jfr.collect.ClassLoadingCollector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Service-loader and resource lookups, by name and caller, from advice on
 * {@code ServiceLoader.load} and {@code ClassLoader.getResource(s)}. A lookup delegates to parent
 * loaders through the same methods: only the outermost call of a thread counts. Resource reads
 * of {@code META-INF/services/} are the service loader's own and count as its lookup.
 */
final class LookupListener extends Listener {
    static final String SERVICE = "service-lookup";
    static final String RESOURCE = "resource-lookup";
    private static final int MAX_FRAMES = 40;
    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final ClassLoader OWN = LookupListener.class.getClassLoader();

    static final class Row {
        final String kind, name, caller;
        final List<String> stack;
        final LongAdder count = new LongAdder();

        Row(String kind, String name, String caller, List<String> stack) {
            this.kind = kind;
            this.name = name;
            this.caller = caller;
            this.stack = stack;
        }
    }

    final Map<String, Row> rows = new ConcurrentHashMap<>();
    volatile int serviceId = -1;
    volatile boolean counting;

    @Override
    public long enterArgs(int id, Object self, Object[] args) {
        int[] depth = DEPTH.get();
        if (depth[0]++ > 0 || !counting) return 0L;
        String kind = id == serviceId ? SERVICE : RESOURCE;
        String name = name(args);
        if (name == null || (kind.equals(RESOURCE) && name.startsWith("META-INF/services/"))) return 0L;
        List<StackWalker.StackFrame> frames = WALKER.walk(s -> s.dropWhile(f -> f.getClassName().startsWith("io.culprit."))
                .limit(MAX_FRAMES).collect(Collectors.toList()));
        // The agent's own lookups (its isolated loader's classes) are not the application's.
        for (StackWalker.StackFrame f : frames) if (f.getDeclaringClass().getClassLoader() == OWN) return 0L;
        List<String> stack = frames.stream().map(f -> f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber())
                .collect(Collectors.toList());
        String caller = ClassLoadingCollector.caller(stack);
        rows.computeIfAbsent(kind + "|" + name + "|" + caller, k -> new Row(kind, name, caller, new ArrayList<>(stack)))
                .count.increment();
        return 0L;
    }

    @Override
    public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        DEPTH.get()[0]--;
    }

    private static String name(Object[] args) {
        if (args == null) return null;
        for (Object a : args) {
            if (a instanceof Class) return ((Class<?>) a).getName();
            if (a instanceof String) return (String) a;
        }
        return null;
    }
}
