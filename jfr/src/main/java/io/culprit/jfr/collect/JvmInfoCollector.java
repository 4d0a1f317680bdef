package io.culprit.jfr.collect;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;

/** The recorded JVM (pid, version, flags, command line) for {@code case.json}'s target map. */
public final class JvmInfoCollector implements EventCollector {
    private final Map<String, String> target = new LinkedHashMap<>();
    private String command;

    @Override
    public Set<String> events() {
        return Set.of("jdk.JVMInformation", "jdk.CPUInformation", "jdk.InitialSystemProperty");
    }

    @Override
    public void accept(RecordedEvent e) {
        if (e.getEventType().getName().equals("jdk.CPUInformation")) {
            target.put("cpus", String.valueOf((Object) e.getValue("hwThreads")));
            return;
        }
        if (e.getEventType().getName().equals("jdk.InitialSystemProperty")) {
            // The command line once more: a recording can lack jdk.JVMInformation (seen: JDK 17's
            // jcmd JFR.start, default settings, in a JVM that had recorded before).
            if ("sun.java.command".equals(e.getString("key"))) command = e.getString("value");
            return;
        }
        target.put("pid", String.valueOf((Object) e.getValue("pid")));
        target.put("vmName", e.getString("jvmName"));
        target.put("jdk", e.getString("jvmVersion"));
        target.put("jvmArgs", e.getString("jvmArguments"));
        target.put("mainClass", e.getString("javaArguments"));
    }

    /** Only what the recording knew: CaseInfo keeps no null values. */
    public Map<String, String> target() {
        Map<String, String> out = new LinkedHashMap<>();
        if (command != null && target.get("mainClass") == null) target.put("mainClass", command);
        target.forEach((k, v) -> {
            if (v != null && !v.equals("null")) out.put(k, v);
        });
        return out;
    }
}
