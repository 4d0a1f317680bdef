package io.culprit.cli.agent;

import java.util.ArrayList;
import java.util.List;

/** Splits {@code "cmd1; cmd2"} on semicolons outside quotes, so expressions may contain ';'. */
public final class CommandLines {
    private CommandLines() {
    }

    public static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                cur.append(c);
            } else if (c == '\'' || c == '"') {
                quote = c;
                cur.append(c);
            } else if (c == ';') {
                add(out, cur);
            } else {
                cur.append(c);
            }
        }
        if (quote != 0) throw new IllegalArgumentException("unterminated quote " + quote + " in: " + line);
        add(out, cur);
        return out;
    }

    private static void add(List<String> out, StringBuilder cur) {
        String s = cur.toString().strip();
        if (!s.isEmpty()) out.add(s);
        cur.setLength(0);
    }
}
