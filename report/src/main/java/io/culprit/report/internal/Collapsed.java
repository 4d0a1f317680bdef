package io.culprit.report.internal;

import io.culprit.report.Report.FlameNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Collapsed stacks ({@code frame;frame;frame count}, root first, as async-profiler and
 * jfr-converter write them) folded into a call tree. Frames narrower than {@link #MIN_SHARE} of
 * all samples are dropped: they would be under a pixel wide, and they are what would make a
 * long profile's page many megabytes.
 */
public final class Collapsed {
    static final double MIN_SHARE = 0.0005;

    /** A mutable tree while parsing. */
    public static final class Node {
        final String name;
        long value;
        final Map<String, Node> children = new LinkedHashMap<>();

        Node(String name) { this.name = name; }

        public long value() { return value; }

        public Node child(String frame) { return children.get(frame); }
    }

    private Collapsed() { }

    public static Node parse(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Parses collapsed text; {@code source} names it in errors. */
    public static Node parse(String text, String source) {
        Node root = new Node("all");
        try (BufferedReader r = new BufferedReader(new StringReader(text))) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                line = line.strip();
                if (line.isEmpty()) continue;
                int sp = line.lastIndexOf(' ');
                long count;
                try {
                    count = sp < 0 ? -1 : Long.parseLong(line.substring(sp + 1));
                } catch (NumberFormatException e) {
                    count = -1;
                }
                if (count < 0) throw new IllegalArgumentException(source + ":" + n + ": not a collapsed stack (\"frames count\"): " + abbreviate(line));
                String[] frames = line.substring(0, sp).split(";");
                for (int i = 0; i < frames.length; i++) frames[i] = TYPE_SUFFIX.matcher(frames[i]).replaceFirst("");
                add(root, frames, count);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return root;
    }

    /** async-profiler's frame-type annotations ({@code _[j]} JIT, {@code _[i]} inlined, {@code _[0]} interpreted...). */
    private static final Pattern TYPE_SUFFIX = Pattern.compile("_\\[[a-z0-9]{1,2}\\]$");

    /**
     * The deepest stack drawn whole. The page's data nests two JSON levels per frame and Jackson
     * refuses more than 1,000 levels; a recursion that runs until StackOverflowError leaves stacks
     * thousands of frames deep. Deeper stacks keep their root side and their leaf side (where the
     * time is spent) around one {@link #ELIDED} frame.
     */
    static final int MAX_DEPTH = 400;
    static final String ELIDED = "[deep stack: frames elided]";

    static void add(Node root, String[] frames, long count) {
        if (frames.length > MAX_DEPTH) {
            String[] kept = new String[MAX_DEPTH];
            int head = MAX_DEPTH / 2, tail = MAX_DEPTH - head - 1;
            System.arraycopy(frames, 0, kept, 0, head);
            kept[head] = ELIDED;
            System.arraycopy(frames, frames.length - tail, kept, head + 1, tail);
            frames = kept;
        }
        root.value += count;
        Node at = root;
        for (String f : frames) {
            at = at.children.computeIfAbsent(f, Node::new);
            at.value += count;
        }
    }

    /** The pruned immutable tree, children widest first. */
    public static FlameNode toFlame(Node root) {
        return toFlame(root, Math.max(1, (long) Math.ceil(root.value * MIN_SHARE)));
    }

    /**
     * A differential tree: the shape and values of {@code after}, each node carrying the
     * baseline's samples for the same path scaled to the after total (so a frame that took the
     * same share of both profiles has {@code before == value}). Paths only the baseline has are
     * kept with value 0: what a fix removed is the point of the comparison.
     */
    public static FlameNode diff(Node before, Node after) {
        double scale = before.value == 0 ? 0 : (double) after.value / before.value;
        return diff(after, before, Math.max(1, (long) Math.ceil(after.value * MIN_SHARE)), scale);
    }

    private static FlameNode diff(Node a, Node b, long min, double scale) {
        List<String> names = new ArrayList<>(a.children.keySet());
        for (String n : b.children.keySet()) if (!a.children.containsKey(n)) names.add(n);
        List<FlameNode> out = new ArrayList<>();
        for (String n : names) {
            Node ca = a.children.getOrDefault(n, EMPTY), cb = b.children.getOrDefault(n, EMPTY);
            if (Math.max(ca.value, cb.value * scale) >= min) out.add(diff(ca == EMPTY ? named(n) : ca, cb, min, scale));
        }
        out.sort(Comparator.comparingLong(FlameNode::value).reversed().thenComparing(f -> -f.before()));
        return new FlameNode(a.name, a.value, Math.round(b.value * scale * 10) / 10.0, out);
    }

    private static Node named(String name) {
        return new Node(name);
    }

    private static FlameNode toFlame(Node n, long min) {
        List<Node> kids = new ArrayList<>(n.children.values());
        kids.sort(Comparator.comparingLong((Node c) -> c.value).reversed());
        List<FlameNode> out = new ArrayList<>();
        for (Node c : kids) {
            if (c.value < min) break;
            out.add(toFlame(c, min));
        }
        return new FlameNode(n.name, n.value, null, out);
    }

    private static final Node EMPTY = new Node("");

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }
}
