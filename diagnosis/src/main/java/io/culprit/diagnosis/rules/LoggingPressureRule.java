package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;
import java.util.Set;

/**
 * Logging as a cost: time in appenders and stack traces printed per second (CASES.md #5: every
 * error logged with its full stack, the async appender's backlog minutes long).
 */
public final class LoggingPressureRule implements Rule {
    /**
     * A tenth of the machine's CPU time in appenders, as for the other CPU consumers: one plain
     * line per request at a few thousand requests a second already costs ~5 %, noisy but not why
     * a service is slow; that much is reported as INFO.
     */
    static final double APPENDER_SHARE_WARN = 0.1;
    static final double APPENDER_SHARE_INFO = 0.05;
    static final double APPENDER_SHARE_CRITICAL = 0.2;
    /** Without a logging probe: a tenth of CPU samples inside logging frameworks. */
    static final double PROFILE_SHARE_WARN = 0.1;
    static final double PROFILE_SHARE_CRITICAL = 0.3;
    private static final String[] LOGGING = {
        "ch.qos.logback.", "org.apache.logging.log4j.", "org.apache.log4j.", "java.util.logging.", "org.slf4j."
    };
    /**
     * Where a logging framework finds the caller's class, method and line for a pattern that asks
     * for them (logback %M %L %C %F %caller, log4j2 %l %L %M %C %F, JUL's source): a stack walk per
     * event, logback's through a new Throwable.
     */
    private static final String[] CALLER_DATA = {
        "ch.qos.logback.classic.spi.LoggingEvent.getCallerData", "ch.qos.logback.classic.spi.CallerData.extract",
        "org.apache.logging.log4j.util.StackLocator.calcLocation", "org.apache.logging.log4j.util.StackLocatorUtil.calcLocation",
        "org.apache.logging.log4j.core.impl.Log4jLogEvent.getSource", "java.util.logging.LogRecord.inferCaller"
    };
    /** A third of logging's CPU spent finding callers: the pattern, not the volume, is the cost. */
    static final double CALLER_DATA_OF_LOGGING = 1.0 / 3;

    /** Ten stack traces a second: each is kilobytes of formatting and I/O, a storm rather than a signal. */
    static final double STACK_TRACES_PER_SECOND_WARN = 10;

    @Override public String id() { return "logging-pressure"; }
    @Override public String title() { return "Logging pressure (appender time, stack-trace storms)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("logging");
        if (table.isEmpty()) return fromProfile(ev);
        Table t = table.get();
        double seconds = ev.observedSeconds();
        if (!(seconds > 0)) return notAssessed("observation time unknown (case.json time range)");
        double events = 0, stacks = 0, appenderMs = 0;
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            events += finite(t.number(i, "events"));
            stacks += finite(t.number(i, "withStackTrace"));
            appenderMs += finite(t.number(i, "appenderMs"));
            // the row with the most stack traces; without any, the one with the most events
            if (top < 0 || finite(t.number(i, "withStackTrace")) > finite(t.number(top, "withStackTrace"))
                    || (finite(t.number(i, "withStackTrace")) == finite(t.number(top, "withStackTrace"))
                        && finite(t.number(i, "events")) > finite(t.number(top, "events")))) top = i;
        }
        double cpus = ev.cpus() > 0 ? ev.cpus() : 1;
        // The probe times appenders from entry to exit: wall time, which includes waiting for the
        // appender's lock and for the disk. With a cpu profile the CPU share comes from there (one
        // plain line per request measured 10.5 % of the machine in appender wall time but 3.4 % of
        // CPU samples); without one, the wall time stands in for it.
        double profiled = ev.cpuShare(LoggingPressureRule::isLogging);
        boolean fromProfile = Double.isFinite(profiled);
        double share = fromProfile ? profiled : appenderMs / (seconds * 1000 * cpus);
        double stacksPerSecond = stacks / seconds;
        Numbers n = new Numbers();
        String what = n.tag(Fmt.num(events / seconds), "tables/logging") + " log events/s, "
                + n.tag(Fmt.num(stacksPerSecond), "tables/logging") + " with a stack trace/s, "
                + n.tag(Fmt.ms(appenderMs / seconds), "tables/logging") + " in appenders per second"
                + (fromProfile ? " (wall time), logging frameworks in " + n.tag(Fmt.pct(share), ev.cpuRef()) + " of CPU samples"
                        : " (" + n.tag(Fmt.pct(share), "tables/logging") + " of " + Fmt.num(cpus) + " CPU(s))");
        double callers = ev.cpuShare(LoggingPressureRule::isCallerData);
        // logback finds callers while encoding, before its appender's lock (a ReentrantLock around the
        // write): when that is most of logging's cost, the waits for the lock are its consequence (the
        // holders are off the CPU the stack walks saturate), and the caller data is the finding. A
        // java.util.logging handler formats, caller included, inside its own monitor: the lock stays first.
        int lock = loggingLock(ev);
        boolean callerDataFirst = fromProfile && callers >= CALLER_DATA_OF_LOGGING * share && share >= APPENDER_SHARE_WARN
                && lock >= 0 && !isLogging(Evidence.text(ev.rows("locks").orElseThrow(), lock, "lockClass"));
        Finding blocked = blockedOnOutput(ev, t, appenderMs, share, fromProfile, what);
        if (blocked == null && !callerDataFirst) blocked = handlerLock(ev);
        if (blocked != null) return blocked;
        Severity sev = share >= APPENDER_SHARE_CRITICAL ? Severity.CRITICAL
                : share >= APPENDER_SHARE_WARN || stacksPerSecond >= STACK_TRACES_PER_SECOND_WARN ? Severity.WARN
                : share >= APPENDER_SHARE_INFO ? Severity.INFO : Severity.OK;
        Finding.Builder b = finding(sev).evidence("tables/logging").numbers(n.refs());
        if (sev == Severity.OK) return b.summary(what + ".").build();
        String logger = top < 0 ? "" : Evidence.text(t, top, "logger");
        String level = top < 0 ? "" : Evidence.text(t, top, "level");
        if (fromProfile && callers >= CALLER_DATA_OF_LOGGING * share) {
            Numbers nc = new Numbers();
            String callerShare = nc.tag(Fmt.pct(callers), ev.cpuRef());
            double lockShare = lock < 0 ? Double.NaN : lockBlocked(ev, lock);
            boolean waits = lockShare >= BLOCKED_SHARE_WARN;
            String lockRef = "tables/locks#" + lock;
            b.numbers(nc.refs()).score(Math.max(share, waits ? lockShare : 0))
                    .culprit("caller data in the log pattern" + (logger.isEmpty() ? "" : " (" + logger + ")"))
                    .evidence("tables/logging#" + Math.max(top, 0))
                    .summary(what + "; " + callerShare + " of CPU samples find each event's caller"
                            + " (class, method, line) for the log pattern" + (logger.isEmpty() ? "" : ", most events from " + logger)
                            + (waits ? ", and requests wait " + nc.tag(Fmt.pct(lockShare), lockRef) + " of their time for the appender's lock,"
                                    + " whose holders share the CPUs those stack walks saturate" : "") + ".")
                    .explanation("A pattern with the caller's method or line makes the framework walk the stack for every"
                            + " event (logback through a new Throwable, counted as a caught exception), whatever is logged:"
                            + " the cost is per event, on the thread that logs.")
                    .fix("Drop caller data from the pattern: %M, %L, %C, %F, %caller in logback (%line, %method, %class,"
                            + " %file), %l, %L, %M, %C, %F in log4j2 (or includeLocation=\"false\"); the logger's name already"
                            + " says which class logged." + (waits ? " Put an asynchronous appender in front of the file (logback's"
                            + " AsyncAppender, log4j2's AsyncLogger) so that request threads do not queue for its lock." : ""))
                    .confirm(ev.confirm("monitor ch.qos.logback.classic.spi.LoggingEvent getCallerData -c 5"))
                    .explains("tail-latency").explains("caught-exceptions");
            if (waits) b.evidence(lockRef).explains("lock-contention");
            if (share >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation");
            return b.build();
        }
        // Logback's packaging data: a class load and a code-source lookup per frame of every logged stack trace.
        double packaging = ev.cpuShare(f -> f.startsWith(PACKAGING_DATA));
        if (Double.isFinite(packaging) && packaging >= PACKAGING_OF_LOGGING * (Double.isFinite(share) ? share : 1)) {
            Numbers np = new Numbers();
            b.numbers(np.refs()).score(Double.isFinite(share) ? share : packaging)
                    .culprit("logback's packagingData" + (logger.isEmpty() ? "" : " (" + logger + ")"))
                    .evidence("tables/logging#" + Math.max(top, 0))
                    .summary(what + "; " + np.tag(Fmt.pct(packaging), ev.cpuRef()) + " of CPU samples compute packaging data for each"
                            + " frame of the logged stack traces (logback's PackagingDataCalculator: the jar and version of every"
                            + " frame's class)" + (level.isEmpty() ? "" : ", most at " + level + (logger.isEmpty() ? "" : " from " + logger)) + ".")
                    .numbers(np.refs())
                    .explanation("With packagingData=\"true\" in logback's configuration, every logged exception has each of its"
                            + " frames' classes loaded again and their code source resolved (under a fat jar, a nested-jar URL"
                            + " each), to print [jar:version] beside the frame; the cache lives for one throwable. At hundreds"
                            + " of stack traces a second that is the logging's main cost, and the class loader's lock serializes it.")
                    .fix("Turn packaging data off: <configuration packagingData=\"false\"> (logback's default) or remove the"
                            + " attribute; and log expected errors without their stack trace, or once per type per minute.")
                    .confirm(ev.confirm("monitor ch.qos.logback.classic.spi.PackagingDataCalculator calculate -c 5"))
                    .explains("tail-latency").explains("lock-contention").explains("caught-exceptions").explains("hot-path-classloading");
            if (share >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation");
            return b.build();
        }
        b.score(Double.isFinite(share) ? share : 0.05).culprit(logger.isEmpty() ? level + " logging" : logger)
                .evidence("tables/logging#" + Math.max(top, 0))
                .summary(what + (level.isEmpty() ? "" : "; most " + (stacks > 0 ? "stack traces" : "events") + " at " + level
                        + (logger.isEmpty() ? "" : " from " + logger)) + ".")
                .explanation("Formatting a stack trace walks and prints every frame; at hundreds per second the"
                        + " appender (or the async queue feeding it) becomes a bottleneck and a CPU consumer, and an"
                        + " async backlog delays every other log line.")
                .fix("Log expected errors without the stack (or once per type per minute), lower the level of noisy"
                        + " loggers, and bound the async appender's queue with discarding for low levels.")
                .confirm(ev.confirm("monitor ch.qos.logback.core.OutputStreamAppender append -c 5"))
                .explains("tail-latency");
        if (share >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation");
        return b.build();
    }

    private static final String PACKAGING_DATA = "ch.qos.logback.classic.spi.PackagingDataCalculator.";
    /** Packaging data in this share of the logging's CPU or more is what the logging costs. */
    static final double PACKAGING_OF_LOGGING = 0.3;

    /** The row with the most events, -1 for an empty table. */
    private static int busiest(Table t) {
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) if (best < 0 || finite(t.number(i, "events")) > finite(t.number(best, "events"))) best = i;
        return best;
    }

    /** Half the events at DEBUG or TRACE: a level lowered (for a diagnosis) and left so, not the service's own lines. */
    static final double DEBUG_SHARE = 0.5;

    /** Levels below INFO, in SLF4J's and java.util.logging's names. */
    private static final Set<String> DEBUG_LEVELS = Set.of("DEBUG", "TRACE", "FINE", "FINER", "FINEST");

    /** The share of events at DEBUG or TRACE (FINE and finer in java.util.logging), NaN for none. */
    private static double debugShare(Table t) {
        double all = 0, debug = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double e = finite(t.number(i, "events"));
            all += e;
            if (DEBUG_LEVELS.contains(Evidence.text(t, i, "level"))) debug += e;
        }
        return all > 0 ? debug / all : Double.NaN;
    }

    /**
     * "Most events are DEBUG or TRACE lines …: set the level back to INFO. " when they are, else
     * "". A service outside the lab started with logging.level.root=DEBUG logged five Spring MVC lines
     * per request to standard output; the fix said "DEBUG for per-request lines".
     */
    private static String debugLevel(double share) {
        if (!(share >= DEBUG_SHARE)) return "";
        return "Most events are DEBUG or TRACE lines: the level was lowered,"
                + " for a diagnosis or by a profile, and left so. Set it back to INFO (Spring Boot: logging.level.root and every"
                + " logging.level.<package> entry; logback: the level of <root> and of each <logger>; log4j2: <Root level>). ";
    }

    /** Request time inside appenders, waiting rather than computing, from which logging blocks requests. */
    static final double BLOCKED_SHARE_WARN = 0.1;
    static final double BLOCKED_SHARE_CRITICAL = 0.3;

    /**
     * Requests that wait inside appenders: the appender's wall time is a large share of request time
     * while logging is a small share of the CPU. The appender writes under its lock, and the write
     * waits for whatever takes the output (the reader of a pipe or of standard output, a disk, a
     * socket), so every thread that logs queues behind it. A service outside the lab logging two
     * INFO lines per request to standard output, read at 64 KB/s (a container's log driver under
     * load), spent 98 % of its request time in the console appender, 3 % of CPU samples in logging:
     * lock-contention named logback's lock with the cure for a lock in one's own code.
     */
    private Finding blockedOnOutput(Evidence ev, Table t, double appenderMs, double cpuShare, boolean fromProfile, String what) {
        double requestMs = ev.requestTimeMs();
        if (!(requestMs > 0) || !fromProfile) return null;
        double blocked = Math.min(1, appenderMs / requestMs);
        if (!(blocked >= BLOCKED_SHARE_WARN) || !(blocked >= 3 * cpuShare)) return null;
        Numbers n = new Numbers();
        String output = output(ev, n);
        // Without a wait seen in a logging frame's I/O, only a wide gap between wall and CPU says "waiting".
        if (output == null && !(blocked >= 5 * cpuShare)) return null;
        // Volume, not stack traces, is what waits on the output: name the logger with the most events.
        int busiest = busiest(t);
        String logger = busiest < 0 ? "" : Evidence.text(t, busiest, "logger");
        String level = busiest < 0 ? "" : Evidence.text(t, busiest, "level");
        double debug = debugShare(t);
        // A file locked for every event (logback's prudent mode) is a cost of its own, with its own cure.
        double locking = ev.cpuShare(LoggingPressureRule::locksTheFile);
        boolean locks = locking >= FILE_LOCK_OF_LOGGING * ev.cpuShare(LoggingPressureRule::isLogging);
        Finding.Builder b = finding(blocked >= BLOCKED_SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN)
                .score(blocked).evidence("tables/logging").evidence("tables/logging#" + Math.max(busiest, 0))
                .culprit(debug >= DEBUG_SHARE ? "the DEBUG log level" + (logger.isEmpty() ? "" : " (" + logger + " the loudest)")
                        : logger.isEmpty() ? "logging on the request path" : logger)
                .summary("requests spend " + n.tag(Fmt.pct(blocked), "tables/logging") + " of their time inside log appenders, waiting"
                        + " rather than computing (" + what + ")" + (output == null ? "" : "; the appender waits to write " + output)
                        + (debug >= DEBUG_SHARE ? "; " + n.tag(Fmt.pct(debug), "tables/logging") + " of the events at DEBUG or TRACE" : "")
                        + (locks ? "; " + n.tag(Fmt.pct(locking), ev.cpuRef()) + " of CPU samples lock the log file for each event"
                                + " (logback's prudent mode)" : "")
                        + (logger.isEmpty() ? "" : "; most events at " + level + " from " + logger) + ".")
                .explanation("An appender writes each event under its lock; an async appender hands it to a bounded queue"
                        + " instead. When the output takes the bytes slower than the service logs them (the reader of standard"
                        + " output or of a pipe, such as a container runtime's log driver, a slow disk, a log collector's"
                        + " socket), the write blocks with the lock held, or the queue fills and a blocking async appender"
                        + " (logback's default, neverBlock=false) makes the caller wait for a slot: every thread that logs"
                        + " waits, and the service runs at the speed of its log's reader.")
                .fix(debugLevel(debug) + (locks ? PRUDENT_FIX : "") + "Log less on the request path (DEBUG for per-request lines, or sample them); put an AsyncAppender with"
                        + " neverBlock=\"true\" in front of the slow appender (logback; log4j2: AsyncLogger or an async appender"
                        + " with blocking=\"false\"), so that a full queue drops events instead of stopping requests; and find out"
                        + " why the output is slow (the log driver's or collector's throughput, the disk).")
                .confirm(ev.confirm("monitor ch.qos.logback.core.OutputStreamAppender writeBytes -c 5") + " (or log4j2's"
                        + " AbstractOutputStreamAppender append): its time per call is the wait")
                .explains("lock-contention").explains("request-waits").explains("tail-latency").numbers(n.refs());
        return b.build();
    }

    /**
     * Requests that queue on a logging framework's own lock (the locks table's top row): a handler or
     * appender that formats and writes each event while holding it, such as java.util.logging's
     * FileHandler, whose synchronized publish also flushes every record. culprit's logging probe
     * times logback's and log4j2's appenders, not JUL's: a service outside the lab that wrote three
     * audit lines per request through a JUL FileHandler had lock-contention name the handler's
     * monitor with the cure for a lock in its own code ("make the call before taking the lock").
     */
    private Finding handlerLock(Evidence ev) {
        int top = loggingLock(ev);
        if (top < 0) return null;
        Table l = ev.rows("locks").orElseThrow();
        String lock = Evidence.text(l, top, "lockClass");
        double blocked = lockBlocked(ev, top);
        if (!(blocked >= BLOCKED_SHARE_WARN)) return null;
        String ref = "tables/locks#" + top;
        String waiter = null;
        for (String f : Evidence.stack(l, top, "waiterStack")) if (waiter == null && !isLogging(f) && !io.culprit.diagnosis.Frames.isJdk(f)) waiter = f;
        Numbers n = new Numbers();
        double cpu = ev.cpuShare(LoggingPressureRule::isLogging);
        double callers = ev.cpuShare(LoggingPressureRule::isCallerData);
        boolean jul = lock.startsWith("java.util.logging.");
        String work = Double.isFinite(cpu) ? "; logging frameworks run in " + n.tag(Fmt.pct(cpu), ev.cpuRef()) + " of CPU samples"
                + (callers >= CALLER_DATA_OF_LOGGING * cpu ? ", " + n.tag(Fmt.pct(callers), ev.cpuRef()) + " finding each event's caller" : "")
                : "";
        return finding(blocked >= BLOCKED_SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(blocked)
                .evidence(ref).culprit(waiter == null ? lock : io.culprit.diagnosis.Frames.stripLine(waiter))
                .summary("requests spend " + n.tag(Fmt.pct(blocked), ref) + " of their time blocked on the logging lock " + lock + " ("
                        + n.tag(Fmt.num(l.number(top, "events")), ref) + " waits" + (waiter == null ? "" : ", logging from " + waiter) + ")"
                        + work + ": the " + (jul ? "handler formats and writes" : "appender writes") + " each event while holding it, one thread at a time.")
                .numbers(n.refs())
                .explanation((jul ? "java.util.logging's StreamHandler and FileHandler publish under the handler's monitor, and"
                        + " FileHandler flushes every record to its file inside it; SimpleFormatter's default format also finds each"
                        + " record's caller (its source) by walking the stack." : "The appender writes each event under its lock (and with"
                        + " immediateFlush, logback's default, flushes it to the file there).") + " Every thread that logs queues for that one lock, so the service logs, and answers, one"
                        + " request at a time however many threads and cores it has.")
                .fix("Log less on the request path (a finer level for per-request lines, or one line per request)"
                        + (jul ? "; route java.util.logging into SLF4J (jul-to-slf4j's SLF4JBridgeHandler) and write through an"
                                + " asynchronous appender (logback's AsyncAppender with neverBlock, log4j2's AsyncLogger) instead of a"
                                + " FileHandler that flushes every record; drop the source (%2$s) from"
                                + " java.util.logging.SimpleFormatter.format"
                                : "; put an asynchronous appender in front of the slow one (logback's AsyncAppender with neverBlock,"
                                + " log4j2's AsyncLogger), and drop caller data (%M, %L, %C, %F, %l) from the pattern") + ".")
                .confirm(ev.confirm(jul ? "monitor " + lock + " publish -c 5" : "monitor ch.qos.logback.core.OutputStreamAppender append -c 5")
                        + " (each call's time, the wait for the lock included)")
                .explains("lock-contention").explains("tail-latency").explains("cpu-saturation")
                .build();
    }

    /** "to a pipe or standard stream (at ch.qos.logback.core.joran.spi.ConsoleTarget$1.write)": the output a logging frame waited on; null if none. */
    private static String output(Evidence ev, Numbers n) {
        // An async appender's full queue: the threads that log wait in put() for its writer.
        Optional<Table> locks = ev.rows("locks");
        if (locks.isPresent()) {
            Table l = locks.get();
            for (int i = 0; i < l.rows().size(); i++) {
                if (!LockContentionRule.isBoundedQueue(l.text(i, "lockClass"))) continue;
                String at = null;
                for (String f : Evidence.stack(l, i, "waiterStack")) if (at == null && isLogging(f)) at = f;
                if (at == null) continue;
                return "into its async queue, full: " + n.tag(Fmt.num(l.number(i, "events")), "tables/locks#" + i) + " waits in put() at "
                        + at + " for the writer behind it";
            }
        }
        Optional<Table> waits = ev.rows("request-waits");
        if (waits.isEmpty()) return null;
        Table w = waits.get();
        int top = -1;
        for (int i = 0; i < w.rows().size(); i++) {
            boolean logging = isLogging(Evidence.text(w, i, "site"));
            for (String f : Evidence.stack(w, i, "stack")) logging |= isLogging(f);
            if (logging && (top < 0 || w.number(i, "waitMs") > w.number(top, "waitMs"))) top = i;
        }
        if (top < 0) return null;
        return "to " + Evidence.text(w, top, "target") + " (" + Evidence.text(w, top, "kind") + " I/O at " + Evidence.text(w, top, "site")
                + ", " + n.tag(Fmt.ms(w.number(top, "maxMs")), "tables/request-waits#" + top) + " at the longest)";
    }

    // Without a logging probe the CPU profile still shows logging frameworks' share of the work.
    private Finding fromProfile(Evidence ev) {
        Finding locked = handlerLock(ev);
        if (locked != null) return locked;
        double share = ev.cpuShare(LoggingPressureRule::isLogging);
        if (!Double.isFinite(share)) return notAssessed("no table logging and no cpu profile");
        Optional<Table> hs = ev.rows("cpu-hotspots");
        int top = -1;
        if (hs.isPresent()) {
            Table h = hs.get();
            for (int i = 0; i < h.rows().size(); i++) {
                String f = h.text(i, "frame");
                if (f == null || !isLogging(f)) continue;
                if (top < 0 || h.number(i, "totalShare") > h.number(top, "totalShare")) top = i;
            }
        }
        Table t = hs.orElse(null);
        Finding.Builder b = finding(share >= PROFILE_SHARE_CRITICAL ? Severity.CRITICAL : share >= PROFILE_SHARE_WARN ? Severity.WARN
                : Severity.OK).evidence("tables/cpu-hotspots");
        String what = "logging frameworks in " + Fmt.pct(share) + " of CPU samples" + (top < 0 ? "" : " (top " + t.text(top, "frame") + ")");
        b.number(Fmt.pct(share), ev.cpuRef());
        if (share < PROFILE_SHARE_WARN) return b.summary(what + "; no logging probe.").build();
        String caller = ev.cpuCaller(LoggingPressureRule::isLogging);
        return b.score(share).culprit(caller != null ? caller : top < 0 ? "logging" : t.text(top, "frame"))
                .evidence("tables/cpu-hotspots" + (top < 0 ? "" : "#" + top))
                .summary(what + (caller == null ? "" : ", most of it logged from " + caller)
                        + "; no logging probe, so levels and stack-trace rates are unknown.")
                .explanation("Formatting and writing log events (stack traces above all) at this rate is a CPU consumer of"
                        + " its own and a queue that delays every other log line.")
                .fix("Log expected errors without the stack (or once per type per minute), lower the level of noisy"
                        + " loggers, and bound the async appender's queue with discarding for low levels.")
                .confirm(ev.confirm("monitor ch.qos.logback.core.OutputStreamAppender append -c 5"))
                .explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    static boolean isCallerData(String frame) {
        for (String p : CALLER_DATA) if (frame.startsWith(p)) return true;
        return false;
    }

    /** Half of logging's CPU samples in locking the file: the appender is in prudent (locking) mode. */
    static final double FILE_LOCK_OF_LOGGING = 0.5;

    private static final String PRUDENT_FIX = "Turn the appender's prudent mode off (logback: <prudent>false</prudent>; log4j2:"
            + " locking=\"false\"): it exists so that several JVMs can append to one file, and it pays for that with a file lock"
            + " (FileChannel.lock) and a seek to the file's end for every event, one thread at a time. Give each JVM its own"
            + " file, or log to standard output and let the platform collect it. ";

    /**
     * logback's FileAppender writes through safeWrite only in prudent mode, and safeWrite locks the
     * file. (log4j2's locking FileManager locks in the same method that writes unlocked, so its
     * frames cannot tell the two apart.)
     */
    static boolean locksTheFile(String frame) {
        return frame.startsWith("ch.qos.logback.core.FileAppender.safeWrite");
    }

    /**
     * The locks table's top row, by blocked time, when it is a logging framework's lock: its class
     * is one (java.util.logging's handlers synchronize on themselves), or its waiters wait in one
     * (logback's OutputStreamAppender, a ReentrantLock) on anything but an asynchronous appender's
     * queue; else -1.
     */
    static int loggingLock(Evidence ev) {
        Optional<Table> locks = ev.rows("locks");
        if (locks.isEmpty()) return -1;
        Table l = locks.get();
        int top = 0;
        for (int i = 1; i < l.rows().size(); i++) if (l.number(i, "blockedMs") > l.number(top, "blockedMs")) top = i;
        String lock = Evidence.text(l, top, "lockClass");
        if (isLogging(lock)) return top;
        // An asynchronous appender's full queue: its writer falls behind, which lock-contention's bounded-queue reading tells
        if (LockContentionRule.isBoundedQueue(lock)) return -1;
        String waiter = io.culprit.diagnosis.Frames.firstNonJdk(Evidence.stack(l, top, "waiterStack"));
        return waiter != null && isLogging(waiter) ? top : -1;
    }

    /** The share of request time spent blocked on row {@code row} of the locks table (NaN without request time). */
    private static double lockBlocked(Evidence ev, int row) {
        double requestMs = ev.requestTimeMs();
        return requestMs > 0 ? Math.min(1, ev.rows("locks").orElseThrow().number(row, "blockedMs") / requestMs) : Double.NaN;
    }

    static boolean isLogging(String frame) {
        for (String p : LOGGING) if (frame.startsWith(p)) return true;
        return false;
    }
}
