package io.culprit.load.cli;

import io.culprit.load.LoadException;
import io.culprit.load.RateSchedule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers for the command line's durations, rates and ramps; bad input is a one-line LoadException. */
public final class Args {

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(us|ms|s|m|h)");
    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(?:/(s|sec|m|min))?");

    private Args() {
    }

    /** 'Name: value' strings → an ordered header map. */
    public static Map<String, String> headers(List<String> headers) {
        Map<String, String> hs = new LinkedHashMap<>();
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon <= 0) {
                throw new LoadException("bad header '" + h + "' (expected 'Name: value')");
            }
            hs.put(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
        }
        return hs;
    }

    /** A request body given as literal text or {@code @file}; null stays null. */
    public static byte[] body(String body) {
        if (body == null) {
            return null;
        }
        if (body.startsWith("@")) {
            try {
                return Files.readAllBytes(Path.of(body.substring(1)));
            } catch (Exception e) {
                throw new LoadException("cannot read body file " + body.substring(1) + ": " + e.getMessage());
            }
        }
        return body.getBytes(StandardCharsets.UTF_8);
    }

    /** "500ms", "15s", "2m", "1m30s", "1h"; a bare number is seconds. */
    public static Duration duration(String text, String what) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.matches("\\d+(\\.\\d+)?")) {
            return Duration.ofNanos((long) (Double.parseDouble(s) * 1e9));
        }
        Matcher m = DURATION_PART.matcher(s);
        long nanos = 0;
        int at = 0;
        while (at < s.length() && m.find(at) && m.start() == at) {
            double v = Double.parseDouble(m.group(1));
            nanos += (long) (v * switch (m.group(2)) {
                case "us" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            });
            at = m.end();
        }
        if (at != s.length() || s.isEmpty()) {
            throw new LoadException("bad " + what + " '" + text + "' (expected e.g. 500ms, 15s, 2m, 1m30s)");
        }
        return Duration.ofNanos(nanos);
    }

    /** "800", "800/s", "48000/m": requests per second. */
    public static double rate(String text) {
        Matcher m = RATE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new LoadException("bad rate '" + text + "' (expected e.g. 800/s or 48000/m)");
        }
        double v = Double.parseDouble(m.group(1));
        return m.group(2) != null && m.group(2).startsWith("m") ? v / 60 : v;
    }

    /** "100/s:10s,800/s:30s": ramp linearly to each rate over each duration, k6 style. */
    static List<RateSchedule.Stage> ramp(String text) {
        List<RateSchedule.Stage> stages = new ArrayList<>();
        for (String part : text.split(",")) {
            int colon = part.lastIndexOf(':');
            if (colon < 0) {
                throw new LoadException("bad ramp stage '" + part + "' (expected RATE:DURATION, e.g. 800/s:30s)");
            }
            stages.add(new RateSchedule.Stage(rate(part.substring(0, colon)), duration(part.substring(colon + 1), "ramp duration")));
        }
        return stages;
    }
}
