package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.model.Table;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A logger that dropped, for its level, messages built near a method the profile blames: from
 * table {@code discarded-logs} (the agent counts log calls whose level is off, per logger). A
 * message built with string concatenation or an eager argument is paid for before the logger
 * looks at its level, so its cost shows under the method that built it and nowhere in logging.
 * Loggers are named after their class by convention: the logger of the method's own class, or of
 * the application method that calls it most, is the one whose drops that work fed.
 */
final class DroppedLogs {

    /** Dropped calls per request below which a logger's drops cannot carry a request's cost. */
    static final double MIN_PER_REQUEST = 1;

    final String logger;
    final String level;
    final double perRequest;
    final String ref;

    private DroppedLogs(Table t, int row) {
        this.logger = t.text(row, "logger");
        this.level = t.text(row, "level");
        this.perRequest = t.number(row, "perRequest");
        this.ref = "tables/discarded-logs#" + row;
    }

    /** The logger of {@code method}'s class or of its top application caller's that dropped ≥ 1 call a request. */
    static Optional<DroppedLogs> near(Evidence ev, String method) {
        Optional<Table> rows = ev.rows("discarded-logs");
        if (rows.isEmpty() || method == null) return Optional.empty();
        Set<String> classes = new java.util.HashSet<>();
        classes.add(Frames.topLevelClass(method));  // the class a logger of this code is named after
        ev.cpuProfileIfAny().map(p -> topCaller(p, method)).ifPresent(c -> classes.add(Frames.topLevelClass(c)));
        Table t = rows.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!classes.contains(t.text(i, "logger")) || !(t.number(i, "perRequest") >= MIN_PER_REQUEST)) continue;
            if (best < 0 || t.number(i, "calls") > t.number(best, "calls")) best = i;
        }
        return best < 0 ? Optional.empty() : Optional.of(new DroppedLogs(t, best));
    }

    /** "com.acme.Validator's logger dropped 1,500 FINE messages a request for their level". */
    String clause() {
        return logger + "'s logger dropped " + Fmt.num(perRequest) + " " + level + " message" + (perRequest == 1 ? "" : "s")
                + " a request for their level";
    }

    /** The level check that skips the message: JUL's isLoggable, SLF4J's isDebugEnabled / isTraceEnabled. */
    String guard() {
        if ("DEBUG".equals(level) || "TRACE".equals(level)) {
            return "logger.is" + level.charAt(0) + level.substring(1).toLowerCase(java.util.Locale.ROOT) + "Enabled()";
        }
        return "logger.isLoggable(Level." + level + ")";
    }

    /** The application method nearest above {@code method} in most of the samples it is on; null without one. */
    private static String topCaller(CpuProfile p, String method) {
        Map.Entry<String, Long> top = CpuHotspotRule.top(p.only(st -> Frames.hasMethod(st, method))
                .sumBy(st -> Frames.applicationAbove(st, f -> Frames.stripLine(f).equals(method))));
        return top == null ? null : top.getKey();
    }
}
