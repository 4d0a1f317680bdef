package io.culprit.agent;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.internal.AgentArgs;
import io.culprit.agent.internal.AgentLog;
import io.culprit.agent.internal.RunFile;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.util.Properties;

/**
 * Entry point of the agent core, called reflectively by the launcher inside the isolated loader
 * (the name and signature of {@link #start} are the contract with AgentLauncher).
 */
public final class AgentCore {
    private AgentCore() {
    }

    /**
     * @param args the agent argument string ({@code token=...,rundir=...}), may be empty
     * @param inst the JVM's instrumentation
     * @param mode {@code premain} or {@code attach}, for the log
     */
    public static void start(String args, Instrumentation inst, String mode) throws Exception {
        AgentArgs parsed = AgentArgs.parse(args);
        RunFile runFile = new RunFile(RunFile.resolveDir(parsed.get("rundir")), ProcessHandle.current().pid());
        String bridge = BridgeCheck.mismatch();
        if (bridge != null) {
            // Before anything is installed: the JVM stays as it was, the log says why.
            IllegalStateException refused = new IllegalStateException(bridge);
            AgentLog log = new AgentLog(runFile.logPath());
            log.error("agent not started", refused);
            log.close();
            throw refused;
        }
        // Expressions may call methods, construct objects or load classes only when the user opted in at attach.
        Instrumenter.setUnsafe("true".equals(parsed.get("unsafe")));
        // Detach returns every woven class to its original bytecode and the Bridge to its no-op.
        Lifecycle.addShutdownHook(Instrumenter::resetAll);
        new Agent(parsed, inst, runFile, version()).start(mode);
    }

    static String version() {
        try (InputStream in = AgentCore.class.getResourceAsStream("/culprit-agent.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
