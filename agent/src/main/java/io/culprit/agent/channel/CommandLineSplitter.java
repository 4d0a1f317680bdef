package io.culprit.agent.channel;

import io.culprit.agent.command.CommandException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a console line into words the way a shell would, so OGNL-style expressions survive:
 * {@code watch a.B c '{params, returnObj}' -x 2} gives six words, the third being
 * {@code {params, returnObj}}. Single quotes are literal; double quotes allow {@code \"} and
 * {@code \\}; outside quotes a backslash escapes the next character.
 */
public final class CommandLineSplitter {
    private CommandLineSplitter() {
    }

    public static List<String> split(String line) throws CommandException {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                } else if (c == '\\' && i + 1 < line.length() && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                inWord = true;
                if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '\\' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new CommandException("unterminated " + (quote == '"' ? "double" : "single") + " quote");
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
