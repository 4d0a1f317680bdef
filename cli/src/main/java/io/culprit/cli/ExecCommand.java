package io.culprit.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.culprit.cli.agent.AgentClient;
import io.culprit.cli.agent.CommandLines;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code culprit exec <pid> "cmd1; cmd2"}: runs console commands without a console, for scripts
 * and tests. Text by default; {@code --json} prints the structured results instead.
 */
@Command(name = "exec", mixinStandardHelpOptions = true, description = "Runs agent commands in a JVM non-interactively.",
        footer = {"", "Examples:",
                "  culprit exec 4242 \"thread -n 3 -i 1000\"",
                "  culprit exec 4242 \"dashboard; thread -b\"",
                "  culprit exec --json 4242 jvm"})
public final class ExecCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PID", description = "the target JVM's process id")
    long pid;

    @Option(names = "--unsafe", description = "let watch expressions call methods, construct objects and load classes (fixed at attach)")
    boolean unsafe;

    @Parameters(index = "1", paramLabel = "COMMANDS", description = "one or more commands separated by ';'")
    String commands;

    @Option(names = "--json", description = "print structured results as JSON")
    boolean json;

    @Option(names = "--width", defaultValue = "120", description = "output width (default: ${DEFAULT-VALUE})")
    int width;

    @Override
    public Integer call() {
        List<String> cmds = CommandLines.split(commands);
        if (cmds.isEmpty()) {
            System.err.println("culprit: no command given");
            return 2;
        }
        AgentClient agent = AgentClient.connect(pid, unsafe);
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode results = mapper.createArrayNode();
        int worst = 0;
        for (String cmd : cmds) {
            ObjectNode result = results.addObject().put("command", cmd);
            int code = agent.run(cmd, json, width, f -> {
                switch (f.type) {
                    case OUT:
                        if (!json) System.out.println(f.text);
                        break;
                    case DATA:
                        // Repeating commands (dashboard -n 3) send one result per frame: keep them all.
                        if (!result.has("data")) result.set("data", f.data);
                        else if (result.get("data").isArray() && result.has("frames")) ((ArrayNode) result.get("data")).add(f.data);
                        else result.put("frames", true).set("data", mapper.createArrayNode().add(result.get("data")).add(f.data));
                        break;
                    case ERR:
                        System.err.println("culprit: " + f.text);
                        result.put("error", f.text);
                        break;
                    default:
                        break;
                }
            });
            result.remove("frames");
            result.put("code", code);
            worst = Math.max(worst, code);
            if (code != 0) break; // later commands may depend on this one (e.g. "trace ...; stop")
        }
        if (json) {
            System.out.println(cmds.size() == 1 && results.get(0).has("data") ? results.get(0).get("data").toPrettyString() : results.toPrettyString());
        }
        return worst;
    }
}
