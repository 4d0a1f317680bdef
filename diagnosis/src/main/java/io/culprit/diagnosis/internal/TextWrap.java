package io.culprit.diagnosis.internal;

import java.util.ArrayList;
import java.util.List;

/** Greedy word wrap; words longer than the width (frames, SQL) are cut rather than overflow. */
public final class TextWrap {
    private TextWrap() { }

    public static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : (text == null ? "" : text).split("\\s+")) {
            while (word.length() > width) {
                if (line.length() > 0) { lines.add(line.toString()); line.setLength(0); }
                lines.add(word.substring(0, width));
                word = word.substring(width);
            }
            if (word.isEmpty()) continue;
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) line.append(' ');
            line.append(word);
        }
        if (line.length() > 0 || lines.isEmpty()) lines.add(line.toString());
        return lines;
    }

    /** Wraps to at most {@code maxLines}, marking a cut with an ellipsis. */
    public static List<String> wrap(String text, int width, int maxLines) {
        List<String> all = wrap(text, width);
        if (all.size() <= maxLines) return all;
        List<String> out = new ArrayList<>(all.subList(0, maxLines));
        String last = out.get(maxLines - 1);
        out.set(maxLines - 1, (last.length() >= width ? last.substring(0, width - 1) : last) + "…");
        return out;
    }
}
