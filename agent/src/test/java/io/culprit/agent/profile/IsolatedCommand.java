package io.culprit.agent.profile;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/** Loads a command in a fresh class loader, as a re-attached agent would, and runs it. */
final class IsolatedCommand {
    private IsolatedCommand() { }

    static Object load(Class<?> command) throws Exception {
        URL classes = command.getProtectionDomain().getCodeSource().getLocation();
        // The agent's core.jar carries async-profiler's native library; the test loader must too.
        URL profiler = one.profiler.AsyncProfiler.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader loader = new URLClassLoader("culprit-reattach", new URL[] {classes, profiler}, ClassLoader.getPlatformClassLoader());
        return loader.loadClass(command.getName()).getConstructor().newInstance();
    }

    /** Runs the command with a context implemented by a proxy of that loader's CommandContext; returns its text. */
    static String run(Object command, String... args) throws Exception {
        ClassLoader loader = command.getClass().getClassLoader();
        Class<?> ctxType = loader.loadClass("io.culprit.agent.command.CommandContext");
        List<String> lines = new ArrayList<>();
        Object ctx = Proxy.newProxyInstance(loader, new Class<?>[] {ctxType}, (p, m, a) -> {
            switch (m.getName()) {
                case "println": lines.add((String) a[0]); return null;
                case "json": case "cancelled": return false;
                case "width": return 120;
                default: return null;
            }
        });
        Method run = command.getClass().getMethod("run", List.class, ctxType);
        try {
            run.invoke(command, List.of(args), ctx);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new AssertionError("isolated command failed: " + e.getCause().getMessage(), e.getCause());
        }
        return String.join("\n", lines);
    }
}
