package io.culprit.agent;

import io.culprit.agent.channel.ChannelServer;
import io.culprit.agent.channel.CommandRegistry;
import io.culprit.agent.channel.TokenCheck;
import io.culprit.agent.internal.AgentArgs;
import io.culprit.agent.internal.AgentLog;
import io.culprit.agent.internal.RunFile;
import io.culprit.agent.jfr.JfrIdleGuard;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.URLClassLoader;

/** One live agent: its channel, run file and log, from start to detach. */
final class Agent {
    private final AgentArgs args;
    private final Instrumentation inst;
    private final RunFile runFile;
    private final String version;
    private final AgentLog log;
    private TokenCheck tokens;
    private ChannelServer server;
    private Thread exitHook;
    private volatile int port;
    private volatile boolean detaching;

    Agent(AgentArgs args, Instrumentation inst, RunFile runFile, String version) {
        this.args = args;
        this.inst = inst;
        this.runFile = runFile;
        this.version = version;
        this.log = new AgentLog(runFile.logPath());
    }

    void start(String mode) throws IOException {
        long t0 = System.nanoTime();
        String token = args.token() != null ? args.token() : AgentArgs.randomToken();
        tokens = new TokenCheck(token);
        Lifecycle.install(this::detach);
        server = new ChannelServer(log, tokens, CommandRegistry.load(Agent.class.getClassLoader()), inst);
        try {
            port = server.start(this::reattach);
            runFile.write(port, token, version);
        } catch (IOException | RuntimeException e) {
            log.error("agent failed to start", e);
            detach(null);
            throw e;
        }
        // If the target exits while we are attached, leave no stale run file behind.
        exitHook = new Thread(() -> runFile.deleteIfOurs(port), "culprit-exit");
        Runtime.getRuntime().addShutdownHook(exitHook);
        runFile.pruneStale();
        log.info("culprit agent " + version + " started (" + mode + ") on 127.0.0.1:" + port + " in "
                + (System.nanoTime() - t0) / 1_000_000 + " ms, from " + codeSource());
    }

    /** Which core.jar runs (a JVM attached by two culprit versions runs the later one's); never fails the start. */
    private static String codeSource() {
        java.security.CodeSource cs = Agent.class.getProtectionDomain().getCodeSource();
        return cs == null || cs.getLocation() == null ? "an unknown location" : cs.getLocation().toString();
    }

    /** A second attach to this JVM: adopt its token, refresh the run file, start nothing new. */
    private boolean reattach(String rawArgs) {
        if (detaching) {
            return false;
        }
        AgentArgs again = AgentArgs.parse(rawArgs);
        if (again.token() != null) {
            tokens.add(again.token());
            try {
                runFile.write(port, again.token(), version);
            } catch (IOException e) {
                log.error("rewriting the run file on re-attach", e);
            }
        }
        log.info("re-attach: answering from the live agent on port " + port);
        return true;
    }

    /** Runs on culprit-detach (or the starting thread if start failed). */
    private void detach(Thread exempt) {
        detaching = true;
        log.info("detaching");
        try {
            if (server != null) {
                server.close(exempt);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Lifecycle.runHooks(t -> log.error("detach hook failed", t));
        guardJfrIdle();
        if (port != 0) {
            runFile.deleteIfOurs(port);
        }
        if (exitHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException e) {
                // the JVM is already exiting
            }
        }
        log.info("detached");
        log.close();
        closeOwnLoader();
    }

    /** After culprit's recordings are closed: see {@link JfrIdleGuard}; never fails the detach. */
    private void guardJfrIdle() {
        try {
            log.info("jfr idle guard: " + JfrIdleGuard.afterDetach());
        } catch (RuntimeException | LinkageError e) { // LinkageError: a runtime without jdk.jfr
            log.error("jfr idle guard", e);
        }
    }

    /** Releases core.jar; only our own isolated loader, never the application's. */
    private static void closeOwnLoader() {
        ClassLoader loader = Agent.class.getClassLoader();
        if (loader instanceof URLClassLoader && "culprit".equals(loader.getName())) {
            try {
                ((URLClassLoader) loader).close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }
}
