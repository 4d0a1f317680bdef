package io.culprit.jfr.collect;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;

/** The recorded JVM (pid, version, flags, command line) for {@code case.json}'s target map. */
public final class JvmInfoCollector implements EventCollector {
    private final Map<String, String> target = new LinkedHashMap<>();

    @Override
    public Set<String> events() {
        return Set.of("jdk.JVMInformation", "jdk.CPUInformation");
    }

    @Override
    public void accept(RecordedEvent e) {
        if (e.getEventType().getName().equals("jdk.CPUInformation")) {
            target.put("cpus", String.valueOf((Object) e.getValue("hwThreads")));
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
        target.forEach((k, v) -> {
            if (v != null && !v.equals("null")) out.put(k, v);
        });
        return out;
    }
}
