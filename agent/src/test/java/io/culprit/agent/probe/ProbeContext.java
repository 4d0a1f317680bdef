package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.ByteBuddyAgent;

/** Runs one probe command in this JVM (self-attached) and keeps what it printed or returned. */
final class ProbeContext implements CommandContext {

    static final Instrumentation INST = ByteBuddyAgent.install();
    /**
     * JDK classes can only be woven when the Bridge is on the boot path, as in a real target.
     * Here it is on the class path: it is appended to the boot path unless a test that ran
     * earlier in this JVM already loaded it from the class path (then JDK hooks are skipped by
     * the probes, and their tests here; ProbesLabIT covers them through the real agent).
     */
    static final boolean BRIDGE_ON_BOOT_PATH = bridgeOnBootPath();
    static final String WHY_NO_JDK = "the Bridge was loaded from the class path before these tests: JDK classes cannot be woven in this JVM";

    private static boolean bridgeOnBootPath() {
        String bridge = "io.culprit.bootstrap.Bridge";
        for (Class<?> c : INST.getAllLoadedClasses()) {
            if (c.getName().equals(bridge)) return c.getClassLoader() == null;
        }
        try {
            java.net.URL url = ProbeContext.class.getClassLoader().getResource("io/culprit/bootstrap/Bridge.class");
            if (url == null || !"jar".equals(url.getProtocol())) return false;  // a classes directory: no jar to append
            String path = url.getPath();
            java.io.File jar = new java.io.File(java.net.URI.create(path.substring(0, path.indexOf("!/"))));
            INST.appendToBootstrapClassLoaderSearch(new java.util.jar.JarFile(jar));
            return Class.forName(bridge).getClassLoader() == null;
        } catch (Exception e) {
            return false;
        }
    }

    private final boolean json;
    final List<String> lines = new ArrayList<>();
    final List<Object> data = new ArrayList<>();

    private ProbeContext(boolean json) {
        this.json = json;
    }

    static ProbeContext run(Command c, boolean json, String... args) throws Exception {
        ProbeContext ctx = new ProbeContext(json);
        c.run(List.of(args), ctx);
        return ctx;
    }

    String text() {
        return String.join("\n", lines);
    }

    @Override public boolean json() { return json; }
    @Override public int width() { return 160; }
    @Override public void println(String text) { lines.add(text); }
    @Override public void data(Object value) { data.add(value); }
    @Override public boolean cancelled() { return false; }
    @Override public void onCancel(Runnable cleanup) { }
    @Override public Instrumentation instrumentation() { return INST; }
}
