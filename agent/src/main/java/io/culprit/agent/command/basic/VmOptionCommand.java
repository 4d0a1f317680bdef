package io.culprit.agent.command.basic;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code vmoption [name]}: HotSpot flags through HotSpotDiagnosticMXBean. Read-only. */
public final class VmOptionCommand implements Command {
    @Override
    public String name() {
        return "vmoption";
    }

    @Override
    public String summary() {
        return "show HotSpot VM options (flags) and where their values came from";
    }

    @Override
    public String usage() {
        return "vmoption [name]\n"
                + "  vmoption                     the diagnostic/manageable options\n"
                + "  vmoption MaxHeapSize         any one flag, e.g. UseG1GC, MaxGCPauseMillis";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException {
        List<String> words = Flags.parse(name(), args).positional();
        if (words.size() > 1) {
            throw new CommandException("vmoption: setting an option is not supported (culprit only reads the target)");
        }
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (hotspot == null) {
            throw new CommandException("vmoption: this JVM has no HotSpotDiagnosticMXBean");
        }
        List<VMOption> options = new ArrayList<>();
        if (words.isEmpty()) {
            options.addAll(hotspot.getDiagnosticOptions());
        } else {
            try {
                options.add(hotspot.getVMOption(words.get(0)));
            } catch (IllegalArgumentException e) {
                throw new CommandException("vmoption: no VM option '" + words.get(0) + "'");
            }
        }
        options.sort((a, b) -> a.getName().compareTo(b.getName()));
        List<Map<String, Object>> data = new ArrayList<>();
        StringBuilder sb = new StringBuilder(Format.pad("NAME", 36) + Format.pad("VALUE", 24) + Format.pad("ORIGIN", 20) + "WRITEABLE\n");
        for (VMOption o : options) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", o.getName());
            m.put("value", o.getValue());
            m.put("origin", o.getOrigin().name());
            m.put("writeable", o.isWriteable());
            data.add(m);
            sb.append(Format.pad(o.getName(), 35)).append(' ').append(Format.pad(o.getValue(), 23)).append(' ')
                    .append(Format.pad(o.getOrigin().name(), 19)).append(' ').append(o.isWriteable()).append('\n');
        }
        HelpCommand.emit(ctx, sb.toString().stripTrailing(), data);
    }
}
