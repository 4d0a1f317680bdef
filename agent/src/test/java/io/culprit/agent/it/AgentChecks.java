package io.culprit.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** The checks every agent IT runs against a live target, whatever way the agent got in. */
final class AgentChecks {
    private AgentChecks() {
    }

    /**
     * The spinner must be the busiest thread over 500 ms. Tolerance: on a loaded 2-core machine
     * a JIT burst can briefly outrun a starved spinner, so one of three windows must show it.
     */
    static void busiestIsTheSpinner(RunInfo run) throws Exception {
        Channel.Reply last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            last = Channel.run(run.port, run.token, "thread -n 1 -i 500", false);
            assertThat(last.code).as(last.toString()).isZero();
            if (last.out.toString().contains("\"it-spinner\"")) {
                break;
            }
        }
        assertThat(last.out.toString()).as("thread -n 1 names the spinner").contains("\"it-spinner\"").contains("TargetMain");
        Channel.Reply json = Channel.run(run.port, run.token, "thread -n 3 -i 300", true);
        List<?> threads = (List<?>) ((Map<?, ?>) json.data.get(0)).get("threads");
        assertThat(threads).hasSize(3);
        assertThat(map(threads.get(0))).containsKeys("cpuPercent", "stack", "name");
    }

    /** The monitor (3 waiters) ranks first; the ReentrantLock (2 waiters) is found too. */
    static void blockingHolders(RunInfo run) throws Exception {
        Channel.Reply text = Channel.run(run.port, run.token, "thread -b", false);
        assertThat(text.code).as(text.toString()).isZero();
        assertThat(text.out.toString())
                .startsWith("\"it-monitor-holder\"")
                .contains("blocking 3 thread(s)", "it-monitor-waiter-1", "it-monitor-waiter-3", "parkForever")
                .containsPattern("ReentrantLock\\$NonfairSync@\\w+ held by \"it-lock-holder\" Id=\\d+, 2 waiting");
        Channel.Reply json = Channel.run(run.port, run.token, "thread -b", true);
        List<?> locks = (List<?>) ((Map<?, ?>) json.data.get(0)).get("locks");
        Map<?, ?> monitor = (Map<?, ?>) locks.get(0);
        Map<?, ?> lock = (Map<?, ?>) locks.get(1);
        assertThat(monitor.get("kind")).isEqualTo("monitor");
        assertThat(((Map<?, ?>) monitor.get("owner")).get("name")).isEqualTo("it-monitor-holder");
        assertThat((List<?>) monitor.get("waiters")).hasSize(3);
        assertThat(lock.get("kind")).isEqualTo("synchronizer");
        assertThat(((Map<?, ?>) lock.get("owner")).get("name")).isEqualTo("it-lock-holder");
        assertThat((List<?>) lock.get("waiters")).hasSize(2);
    }

    /** GC counts in dashboard rise after the target allocates ~1 GB of short-lived arrays. */
    static void gcCountsRise(RunInfo run, Target target) throws Exception {
        long before = gcCount(run);
        target.ask("alloc", "allocated");
        long after = gcCount(run);
        assertThat(after).as("collections after allocating").isGreaterThan(before);
        Channel.Reply text = Channel.run(run.port, run.token, "dashboard", false);
        assertThat(text.out.toString()).contains("heap", "process cpu", "RUNNABLE", "classes", "COUNT");
    }

    private static long gcCount(RunInfo run) throws Exception {
        Channel.Reply r = Channel.run(run.port, run.token, "dashboard -n 1", true);
        assertThat(r.code).as(r.toString()).isZero();
        long sum = 0;
        for (Object gc : (List<?>) ((Map<?, ?>) r.data.get(0)).get("gc")) {
            sum += ((Number) ((Map<?, ?>) gc).get("count")).longValue();
        }
        return sum;
    }

    static void refusesBadToken(RunInfo run, Target target) throws Exception {
        Channel.Reply r = Channel.run(run.port, "00" + run.token.substring(2).replace('0', '1'), "jvm", false);
        assertThat(r.code).isEqualTo(3);
        assertThat(r.err).containsExactly("refused: bad token");
        assertThat(r.out.toString()).isEmpty();
        Channel.Reply none = Channel.run(run.port, null, "jvm", false);
        assertThat(none.code).isEqualTo(3);
        assertThat(target.agentLog()).contains("refused connection from");
    }

    static void badInput(RunInfo run) throws Exception {
        Channel.Reply unknown = Channel.run(run.port, run.token, "nosuch x", false);
        assertThat(unknown.code).isEqualTo(2);
        assertThat(unknown.err).containsExactly("unknown command 'nosuch' (try help)");
        Channel.Reply flag = Channel.run(run.port, run.token, "thread -n many", false);
        assertThat(flag.code).isEqualTo(2);
        assertThat(flag.err).containsExactly("thread: -n expects a number, got 'many'");
        Channel.Reply vm = Channel.run(run.port, run.token, "vmoption MaxHeapSize", false);
        assertThat(vm.out.toString()).contains("MaxHeapSize").contains(String.valueOf(256L * 1024 * 1024));
        Channel.Reply prop = Channel.run(run.port, run.token, "sysprop java.version", true);
        assertThat(prop.code).isZero();
        assertThat(map(prop.data.get(0))).containsOnlyKeys("java.version");
        Channel.Reply missing = Channel.run(run.port, run.token, "sysprop no.such.key", false);
        assertThat(missing.code).isEqualTo(2);
        assertThat(missing.err).containsExactly("sysprop: no property 'no.such.key'");
        Channel.Reply help = Channel.run(run.port, run.token, "help thread", false);
        assertThat(help.out.toString()).contains("thread -b");
    }

    /** After stop: no culprit thread, port closed, run file gone, target still answering. */
    static void stopLeavesNothing(RunInfo run, Target target) throws Exception {
        Channel.Reply r = Channel.run(run.port, run.token, "stop", false);
        assertThat(r.code).as(r.toString()).isZero();
        assertThat(r.out.toString()).contains("detaching");
        // Bounded poll: detach finishes asynchronously right after stop answers.
        List<String> names = List.of();
        for (int i = 0; i < 50; i++) {
            names = target.threadNames();
            if (names.stream().noneMatch(n -> n.startsWith("culprit-"))) {
                break;
            }
            Thread.sleep(100);
        }
        assertThat(names).as("threads after stop").noneMatch(n -> n.startsWith("culprit-")).contains("it-spinner");
        assertThat(portOpen(run.port)).as("port " + run.port + " after stop").isFalse();
        assertThat(Files.exists(RunInfo.file(target.pid))).as("run file after stop").isFalse();
        assertThat(target.ask("ping", "pong")).startsWith("pong");
    }

    /** A JFR recording started and stopped through the agent, so that JFR has run in the target. */
    static void jfrRuns(RunInfo run, Target target) throws Exception {
        Path file = Files.createTempFile("culprit-it-", ".jfr");
        try {
            Channel.Reply start = Channel.run(run.port, run.token, "jfr start", false);
            assertThat(start.code).as(start.toString()).isZero();
            Channel.Reply stop = Channel.run(run.port, run.token, "jfr stop --file " + file, false);
            assertThat(stop.code).as(stop.toString()).isZero();
            assertThat(Files.size(file)).isPositive();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * After detach, JFR's periodic thread (which outlives every recording) must not wake 100 times
     * a second, as it does on JDK 11–20 once no recording runs (JDK-8302821; JfrIdleGuard).
     */
    static void jfrStaysIdle(Target target) throws Exception {
        String answer = target.ask("jfrwakeups", "jfrwakeups");
        long perSecond = Long.parseLong(answer.substring("jfrwakeups ".length()).trim());
        assertThat(perSecond).as("JFR Periodic Tasks wake-ups a second after detach").isBetween(0L, 10L);
    }

    /**
     * An operator's {@code jcmd <pid> JFR.start duration=4s filename=F} after detach records its
     * whole window beside the idle guard: on JDK 17 an in-memory guard left such a recording one
     * of its four 1 s CPU-load events, and about a quarter of its GCs and samples (JfrIdleGuard).
     */
    static void operatorsRecordingIsWhole(Target target, Path dir) throws Exception {
        Path file = dir.resolve("operator.jfr");
        Path jcmd = target.java.resolveSibling("jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), String.valueOf(target.pid), "JFR.start", "duration=4s", "filename=" + file)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        // JFR writes the file when the duration ends; it exists, empty, a moment before it is whole.
        long deadline = System.currentTimeMillis() + 30_000;
        List<RecordedEvent> events = null;
        while (events == null) {
            try {
                events = Files.size(file) > 0 ? RecordingFile.readAllEvents(file) : null;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) throw e;
            }
            if (events == null) Thread.sleep(200);
        }
        long cpuLoads = events.stream().filter(e -> e.getEventType().getName().equals("jdk.CPULoad")).count();
        assertThat(cpuLoads).as("1 s CPU-load events in the operator's 4 s recording after detach (%s)", out).isGreaterThanOrEqualTo(3L);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    static boolean portOpen(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
