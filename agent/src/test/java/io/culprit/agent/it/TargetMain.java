package io.culprit.agent.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The target JVM of the agent ITs, run as {@code java -cp target/test-classes ...}. It keeps a
 * known picture alive: one thread spinning on CPU, a monitor held by one thread with three
 * waiters, a ReentrantLock held by one thread with two waiters. It obeys lines on stdin
 * ({@code ping}, {@code alloc}, {@code isolation}, {@code jfrwakeups}, {@code exit}) and answers on stdout, which is
 * how the tests see that it keeps working while the agent is attached.
 */
public final class TargetMain {
    static final Object MONITOR = new Object();
    static final ReentrantLock LOCK = new ReentrantLock();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        CountDownLatch held = new CountDownLatch(2);
        daemon("it-spinner", () -> {
            long x = 0;
            while (true) {
                x = x * 31 + System.nanoTime();
                sink = x;
            }
        });
        daemon("it-monitor-holder", () -> {
            synchronized (MONITOR) {
                held.countDown();
                parkForever();
            }
        });
        daemon("it-lock-holder", () -> {
            LOCK.lock();
            held.countDown();
            parkForever();
        });
        held.await();
        for (int i = 1; i <= 3; i++) {
            daemon("it-monitor-waiter-" + i, () -> {
                synchronized (MONITOR) {
                    sink++;
                }
            });
        }
        for (int i = 1; i <= 2; i++) {
            daemon("it-lock-waiter-" + i, () -> {
                LOCK.lock();
                LOCK.unlock();
            });
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long pings = 0;
        String line;
        while ((line = in.readLine()) != null) {
            switch (line.trim()) {
                case "ping":
                    System.out.println("pong " + (++pings));
                    break;
                case "alloc":
                    allocate();
                    System.out.println("allocated");
                    break;
                case "isolation":
                    // On a throwaway thread: Jackson leaves ThreadLocals behind, which on main
                    // would keep the agent's loader reachable after detach.
                    String[] answer = new String[1];
                    Thread probe = new Thread(() -> answer[0] = isolation(), "it-isolation-probe");
                    probe.start();
                    probe.join();
                    System.out.println(answer[0]);
                    break;
                case "jfrwakeups":
                    System.out.println("jfrwakeups " + jfrWakeupsPerSecond());
                    break;
                case "exit":
                    System.exit(0);
                    break;
                default:
                    System.out.println("unknown " + line);
            }
        }
    }

    /**
     * How often JFR's periodic thread woke in the last 2 s (its voluntary context switches, from
     * /proc), or -1 if there is no such thread. Linux only.
     */
    private static long jfrWakeupsPerSecond() throws Exception {
        java.nio.file.Path task = null;
        try (java.util.stream.Stream<java.nio.file.Path> tasks = java.nio.file.Files.list(java.nio.file.Paths.get("/proc/self/task"))) {
            for (java.nio.file.Path t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                if (java.nio.file.Files.readString(t.resolve("comm")).startsWith("JFR Periodic")) task = t;
            }
        }
        if (task == null) return -1;
        long before = switches(task);
        Thread.sleep(2_000);
        return (switches(task) - before) / 2;
    }

    private static long switches(java.nio.file.Path task) throws Exception {
        for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("voluntary_ctxt_switches:")) return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
        throw new IllegalStateException("no voluntary_ctxt_switches in " + task);
    }

    /** Enough short-lived garbage for several young collections under any default heap. */
    private static void allocate() {
        for (int i = 0; i < 2_000; i++) {
            byte[] b = new byte[512 * 1024];
            sink += b.length;
        }
    }

    /**
     * What each side sees of Jackson: the application's own copy through its loader, the agent's
     * through the loader of the agent's accept thread, and whether the agent's classes leak.
     */
    private static String isolation() {
        StringBuilder sb = new StringBuilder("isolation");
        sb.append(" app=").append(jacksonVersion(TargetMain.class.getClassLoader()));
        ClassLoader agentLoader = null;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("culprit-accept")) {
                agentLoader = t.getClass().getClassLoader();
            }
        }
        sb.append(" agent=").append(agentLoader == null ? "none" : jacksonVersion(agentLoader));
        sb.append(" agentLoader=").append(agentLoader == null ? "none" : agentLoader.getName());
        try {
            Class.forName("io.culprit.agent.AgentCore");
            sb.append(" leak=yes");
        } catch (ClassNotFoundException expected) {
            sb.append(" leak=no");
        }
        return sb.toString();
    }

    private static String jacksonVersion(ClassLoader loader) {
        try {
            Class<?> mapper = Class.forName("com.fasterxml.jackson.databind.ObjectMapper", true, loader);
            Object instance = mapper.getConstructor().newInstance();
            Method version = mapper.getMethod("version");
            // Serialize something with it: the copy must work, not just load.
            Object json = mapper.getMethod("writeValueAsString", Object.class).invoke(instance, java.util.List.of(1, 2));
            return version.invoke(instance) + "@" + mapper.getProtectionDomain().getCodeSource().getLocation().getPath()
                    .replaceAll(".*/", "") + (json.equals("[1,2]") ? "" : "!broken");
        } catch (ReflectiveOperationException e) {
            return "missing";
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void parkForever() {
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException ignored) {
                // keep holding: the tests need a stable picture
            }
        }
    }
}
