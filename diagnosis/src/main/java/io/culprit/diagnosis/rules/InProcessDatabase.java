package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import java.util.List;

/**
 * A database that runs inside the service's own JVM (H2, HSQLDB and Derby embedded, SQLite's
 * native library): a statement's time there is this JVM's CPU, and what it allocates is the engine
 * reading rows, not a driver decoding a reply. Told apart by the engine's query-execution frames,
 * which a client of the same database in server mode never runs. A blind Camel service's lookup
 * compared {@code UPPER(tracking_no)} with {@code UPPER(?)} on embedded H2: every call scanned
 * 120,000 rows to return one, 8.6 MB of rows read per call in {@code TableFilter.next}, and culprit
 * read that as a large reply and the CPU it burnt as saturation with no cause.
 */
final class InProcessDatabase {
    private static final String[] ENGINE = {
        "org.h2.command.query.", "org.h2.command.dml.", "org.h2.table.", "org.h2.index.", "org.h2.mvstore.", "org.h2.expression.",
        "org.hsqldb.index.", "org.hsqldb.navigator.", "org.hsqldb.persist.", "org.hsqldb.StatementDMQL", "org.hsqldb.QuerySpecification",
        "org.apache.derby.impl.sql.execute.", "org.apache.derby.impl.store.", "org.sqlite.core.NativeDB"
    };

    private InProcessDatabase() { }

    /** Whether a stack runs a statement inside this JVM's own database engine. */
    static boolean executes(List<String> stack) {
        for (String f : stack) if (Frames.startsWithAny(f, ENGINE)) return true;
        return false;
    }

    /**
     * Share of this JVM's CPU samples that execute a statement in an embedded engine below {@code method}
     * (a call's caller, no line; any caller when null): 0 without a profile to read.
     */
    static double cpuShare(Evidence ev, String method) {
        CpuProfile p = ProfileGate.enough(ev);
        if (p == null) return 0;
        return p.only(stack -> executes(List.of(stack)) && (method == null || below(stack, method))).samples() / (double) p.samples();
    }

    private static boolean below(String[] stack, String method) {
        for (String f : stack) if (Frames.stripLine(f).equals(method)) return true;
        return false;
    }
}
