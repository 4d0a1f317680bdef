package io.culprit.diagnosis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The case's CPU profile in collapsed form ({@code profiles/cpu.collapsed}: one stack per line,
 * frames joined by ';', then the sample count). Shares are taken over whole stacks, so "CPU with
 * a logging frame anywhere on the stack" counts every sample once, however many logging frames
 * it holds — which a per-method hotspot table (top methods only) cannot answer.
 */
public final class CpuProfile {
    private final List<String[]> stacks = new ArrayList<>();
    private final List<Long> counts = new ArrayList<>();
    private long total;

    private CpuProfile() { }

    /** The profile at {@code file}, or empty when there is none (or it holds no samples). */
    public static Optional<CpuProfile> read(Path file) {
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The profile in collapsed {@code text}, or empty when it holds no samples. */
    public static Optional<CpuProfile> parse(String text) {
        CpuProfile p = new CpuProfile();
        text.lines().forEach(p::add);
        return p.total > 0 ? Optional.of(p) : Optional.empty();
    }

    private void add(String line) {
        int sp = line.lastIndexOf(' ');
        if (sp <= 0) return;
        long n;
        try {
            n = Long.parseLong(line.substring(sp + 1).trim());
        } catch (NumberFormatException e) {
            return;  // not a collapsed line
        }
        String[] frames = line.substring(0, sp).split(";");
        for (int i = 0; i < frames.length; i++) frames[i] = clean(frames[i]);
        if (onCulpritsThread(frames)) return;
        stacks.add(frames);
        counts.add(n);
        total += n;
    }

    /**
     * A stack of one of the agent's own threads (its channel's commands, its sampler): the first
     * Java frame from the root outside the JDK is culprit's. That is not the service's work, and it
     * can outweigh it where the service is idle: a {@code collect stop} that loaded Jackson for the
     * case file took 10 of an idle lab's 489 samples and out-voted its resource scan as the top
     * caller of lookups. The agent's hooks on the service's threads stay: their cost is the service's.
     */
    private static boolean onCulpritsThread(String[] frames) {
        for (String f : frames) {
            if (!f.contains(".") || Frames.isJdk(f)) continue;
            return f.startsWith("io.culprit.agent.") || f.startsWith("io.culprit.bootstrap.");  // not the lab's
        }
        return false;
    }

    // async-profiler may annotate frame types ("_[j]" JIT, "_[i]" inlined, "_[k]" kernel).
    private static String clean(String frame) {
        int a = frame.lastIndexOf("_[");
        return a > 0 && frame.endsWith("]") ? frame.substring(0, a) : frame;
    }

    /** The stacks {@code keep} accepts, with their counts: a sub-profile whose shares are of those samples. */
    public CpuProfile only(Predicate<String[]> keep) {
        CpuProfile sub = new CpuProfile();
        for (int i = 0; i < stacks.size(); i++) {
            if (!keep.test(stacks.get(i))) continue;
            sub.stacks.add(stacks.get(i));
            sub.counts.add(counts.get(i));
            sub.total += counts.get(i);
        }
        return sub;
    }

    public long samples() {
        return total;
    }

    /**
     * Who drives the accepted frames: for each sample, the nearest frame on the caller side of
     * the outermost accepted frame that is neither the JDK's nor from the accepted frame's own
     * library (same first two package names) — the application code that logs, or that asks the
     * container for a bean. The caller with the most samples, or null.
     */
    public String topCaller(Predicate<String> frame) {
        Map<String, Long> byCaller = new HashMap<>();
        for (int i = 0; i < stacks.size(); i++) {
            String[] st = stacks.get(i);
            for (int j = 0; j < st.length; j++) {
                if (!frame.test(st[j])) continue;
                String lib = Frames.library(st[j]);
                for (int k = j - 1; k >= 0; k--) {
                    if (Frames.isJdk(st[k]) || Frames.library(st[k]).equals(lib) || !st[k].contains(".")) continue;
                    byCaller.merge(st[k], counts.get(i), Long::sum);
                    break;
                }
                break;
            }
        }
        return byCaller.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    /** Share of all samples whose stack holds at least one frame accepted by {@code frame}. */
    public double share(Predicate<String> frame) {
        long hit = 0;
        for (int i = 0; i < stacks.size(); i++) {
            for (String f : stacks.get(i)) {
                if (frame.test(f)) {
                    hit += counts.get(i);
                    break;
                }
            }
        }
        return (double) hit / total;
    }

    /**
     * Samples summed by a key each stack maps to ({@code frames} root first, leaf last; null
     * leaves the stack out): the profile cut along any line a rule draws.
     */
    public Map<String, Long> sumBy(Function<String[], String> key) {
        Map<String, Long> sums = new HashMap<>();
        for (int i = 0; i < stacks.size(); i++) {
            String k = key.apply(stacks.get(i));
            if (k != null) sums.merge(k, counts.get(i), Long::sum);
        }
        return sums;
    }
}
