package io.culprit.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.cli.agent.AgentClient;
import io.culprit.cli.agent.CommandLines;
import io.culprit.cli.agent.Frame;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.completer.StringsCompleter;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code culprit attach <pid>}: loads the agent (or reuses a live one) and opens a console with
 * history and tab completion. Ctrl-C cancels the running command, not the session; {@code quit}
 * leaves the agent attached, {@code stop} detaches it.
 */
@Command(name = "attach", mixinStandardHelpOptions = true, description = "Attaches to a running JVM and opens an interactive console.",
        footer = {"", "Example:", "  culprit attach 4242",
                "  culprit@4242> thread -n 3",
                "  culprit@4242> stop"})
public final class AttachCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PID", description = "the target JVM's process id")
    long pid;

    @Option(names = "--unsafe", description = "let watch expressions call methods, construct objects and load classes (fixed at attach)")
    boolean unsafe;

    @Override
    public Integer call() throws IOException {
        AgentClient agent = AgentClient.connect(pid, unsafe);
        try (Terminal terminal = TerminalBuilder.builder().system(true).build()) {
            PrintWriter out = terminal.writer();
            Path history = Path.of(System.getProperty("user.home"), ".culprit", "history");
            Files.createDirectories(history.getParent());
            LineReader reader = LineReaderBuilder.builder()
                    .terminal(terminal)
                    .appName("culprit")
                    .completer(new StringsCompleter(commandNames(agent)))
                    .variable(LineReader.HISTORY_FILE, history)
                    .build();
            out.println("Attached to JVM " + pid + ". Type 'help' for commands, 'quit' to leave, 'stop' to detach.");
            out.flush();
            while (true) {
                String line;
                try {
                    line = reader.readLine("culprit@" + pid + "> ");
                } catch (UserInterruptException e) {
                    continue; // Ctrl-C at the prompt clears the line, as in a shell
                } catch (EndOfFileException e) {
                    break;
                }
                List<String> cmds;
                try {
                    cmds = CommandLines.split(line);
                } catch (IllegalArgumentException e) {
                    out.println(e.getMessage());
                    continue;
                }
                if (cmds.size() == 1 && (cmds.get(0).equals("quit") || cmds.get(0).equals("exit"))) break;
                boolean stopped = false;
                for (String cmd : cmds) {
                    int code = runWithCtrlC(terminal, agent, cmd);
                    if (cmd.equals("stop") && code == 0) stopped = true;
                    if (code != 0) break;
                }
                if (stopped) {
                    out.println("Agent detached from JVM " + pid + ".");
                    break;
                }
            }
        }
        return 0;
    }

    private static int runWithCtrlC(Terminal terminal, AgentClient agent, String cmd) {
        PrintWriter out = terminal.writer();
        Terminal.SignalHandler previous = terminal.handle(Terminal.Signal.INT, s -> agent.cancel());
        try {
            return agent.run(cmd, false, Math.max(terminal.getWidth(), 80), f -> {
                if (f.type == Frame.Type.OUT) out.println(f.text);
                else if (f.type == Frame.Type.ERR) out.println("error: " + f.text);
                out.flush();
            });
        } finally {
            terminal.handle(Terminal.Signal.INT, previous);
        }
    }

    /** Asks the agent for its command list; completion is a convenience, so failures are quiet. */
    private static List<String> commandNames(AgentClient agent) {
        List<String> names = new ArrayList<>(List.of("quit", "exit"));
        try {
            agent.run("help", true, 120, f -> {
                if (f.type != Frame.Type.DATA || f.data == null) return;
                JsonNode list = f.data.isArray() ? f.data : f.data.path("commands");
                for (JsonNode n : list) {
                    String name = n.isTextual() ? n.asText() : n.path("name").asText(null);
                    if (name != null) names.add(name);
                }
            });
        } catch (RuntimeException e) {
            // Completion only offers quit/exit then.
        }
        return names;
    }
}
