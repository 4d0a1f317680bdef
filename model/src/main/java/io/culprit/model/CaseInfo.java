package io.culprit.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** {@code case.json}: what was observed, when, and how. */
public final class CaseInfo {
    private final int formatVersion;
    private final String source;
    private final long startEpochMs;
    private final long endEpochMs;
    private final String commandLine;
    private final Map<String, String> target;

    @JsonCreator
    public CaseInfo(@JsonProperty("formatVersion") int formatVersion,
                    @JsonProperty("source") String source,
                    @JsonProperty("startEpochMs") long startEpochMs,
                    @JsonProperty("endEpochMs") long endEpochMs,
                    @JsonProperty("commandLine") String commandLine,
                    @JsonProperty("target") Map<String, String> target) {
        this.formatVersion = formatVersion;
        this.source = source;
        this.startEpochMs = startEpochMs;
        this.endEpochMs = endEpochMs;
        this.commandLine = commandLine;
        this.target = Map.copyOf(target == null ? Map.of() : target);
    }

    public static CaseInfo of(String source, long startEpochMs, long endEpochMs, String commandLine, Map<String, String> target) {
        return new CaseInfo(CaseFile.FORMAT_VERSION, source, startEpochMs, endEpochMs, commandLine, target);
    }

    @JsonProperty public int formatVersion() { return formatVersion; }
    /** {@code diagnose}, {@code observe} or {@code analyze}. */
    @JsonProperty public String source() { return source; }
    @JsonProperty public long startEpochMs() { return startEpochMs; }
    @JsonProperty public long endEpochMs() { return endEpochMs; }
    @JsonProperty public String commandLine() { return commandLine; }
    /** pid, mainClass, jdk (java.version), vmName, jvmArgs, cpus, ... as strings. */
    @JsonProperty public Map<String, String> target() { return target; }

    public double durationSeconds() {
        return (endEpochMs - startEpochMs) / 1000.0;
    }
}
