package io.culprit.agent.profile;

import io.culprit.agent.command.CommandContext;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/** Records a command's output in-process; runs it on the caller's thread. */
final class TestContext implements CommandContext {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final List<Object> data = new CopyOnWriteArrayList<>();

    @Override public boolean json() { return false; }
    @Override public int width() { return 120; }
    @Override public void println(String text) { lines.add(text); }
    @Override public void data(Object value) { data.add(value); }
    @Override public boolean cancelled() { return false; }
    @Override public void onCancel(Runnable cleanup) { }
    @Override public Instrumentation instrumentation() { return null; }

    String text() {
        return String.join("\n", lines);
    }

    /**
     * The agent bundles async-profiler's library as a resource; when this module's class path
     * lacks it (the dependency is declared by the agent packaging), the tests take the same
     * artifact from the local Maven repository.
     */
    static void useLocalAsyncProfiler() throws Exception {
        if (System.getProperty(AsyncProfilerLib.PROPERTY) != null) return;
        if (TestContext.class.getClassLoader().getResource(AsyncProfilerLib.RESOURCE) != null) return;
        Path repo = Paths.get(System.getProperty("user.home"), ".m2", "repository", "tools", "profiler", "async-profiler");
        Path jar;
        try (Stream<Path> s = Files.walk(repo)) {
            jar = s.filter(p -> p.getFileName().toString().matches("async-profiler-[0-9.]+\\.jar")).sorted()
                    .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("async-profiler not in " + repo));
        }
        Path dir = Files.createDirectories(Paths.get(System.getProperty("java.io.tmpdir"), "culprit-test-ap"));
        Path so = dir.resolve("libasyncProfiler.so");
        if (!Files.isRegularFile(so)) {
            try (java.util.jar.JarFile jf = new java.util.jar.JarFile(jar.toFile());
                 InputStream in = jf.getInputStream(jf.getEntry(AsyncProfilerLib.RESOURCE))) {
                Path tmp = Files.createTempFile(dir, "so", ".tmp");
                Files.copy(in, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmp, so, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
        }
        System.setProperty(AsyncProfilerLib.PROPERTY, so.toString());
    }
}
