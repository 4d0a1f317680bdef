package io.culprit.report.internal;

import static io.culprit.report.internal.Html.esc;

import io.culprit.model.Finding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A finding's text with each number its rule tagged ({@link Finding#numbers()}) wrapped in a
 * link to the chart, row or flame graph it was computed from. Tags are matched in the order the
 * rule recorded them, each to the first free occurrence after the previous one (else anywhere),
 * as a whole number: "1" never links the "1" of "100 ms" or "1,024". A number whose ref the page
 * cannot resolve, or whose text is not there, stays plain text.
 */
public final class NumberLinks {
    private record Span(int start, int end, String target, String ref) { }

    private NumberLinks() { }

    /** The escaped text with its numbers linked to their evidence. */
    public static String html(String text, List<Finding.NumberRef> numbers, Refs refs) {
        if (text == null) return "";
        List<Span> spans = spans(text, numbers, refs);
        StringBuilder b = new StringBuilder(text.length() + spans.size() * 60);
        int at = 0;
        for (Span s : spans) {
            b.append(esc(text.substring(at, s.start))).append("<a class=\"num\" href=\"#").append(s.target).append("\" title=\"")
                    .append(esc(s.ref)).append("\">").append(esc(text.substring(s.start, s.end))).append("</a>");
            at = s.end;
        }
        return b.append(esc(text.substring(at))).toString();
    }

    /** True when at least one of the finding's numbers links from {@code text}. */
    public static boolean links(String text, List<Finding.NumberRef> numbers, Refs refs) {
        return text != null && !spans(text, numbers, refs).isEmpty();
    }

    private static List<Span> spans(String text, List<Finding.NumberRef> numbers, Refs refs) {
        List<Span> spans = new ArrayList<>();
        int cursor = 0;
        for (Finding.NumberRef n : numbers) {
            Optional<String> target = refs.target(n.ref());
            if (target.isEmpty()) continue;
            int at = find(text, n.text(), cursor, spans);
            if (at < 0) at = find(text, n.text(), 0, spans);
            if (at < 0) continue;
            spans.add(new Span(at, at + n.text().length(), target.get(), n.ref()));
            cursor = at + n.text().length();
        }
        spans.sort(Comparator.comparingInt(Span::start));
        return spans;
    }

    private static int find(String text, String number, int from, List<Span> taken) {
        for (int at = text.indexOf(number, from); at >= 0; at = text.indexOf(number, at + 1)) {
            if (whole(text, at, at + number.length()) && free(taken, at, at + number.length())) return at;
        }
        return -1;
    }

    private static boolean free(List<Span> taken, int start, int end) {
        for (Span s : taken) if (start < s.end && end > s.start) return false;
        return true;
    }

    // Not part of a longer number or word: no digit, letter, or digit-grouping mark on either side.
    private static boolean whole(String text, int start, int end) {
        if (start > 0) {
            char c = text.charAt(start - 1);
            if (Character.isLetterOrDigit(c) || ((c == '.' || c == ',') && start > 1 && Character.isDigit(text.charAt(start - 2)))) return false;
        }
        if (end < text.length()) {
            char c = text.charAt(end);
            if (Character.isLetterOrDigit(c)) return false;
            if ((c == '.' || c == ',') && end + 1 < text.length() && Character.isDigit(text.charAt(end + 1))) return false;
        }
        return true;
    }
}
