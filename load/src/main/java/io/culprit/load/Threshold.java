package io.culprit.load;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pass/fail condition on a result, in k6's spirit: {@code p99<200ms}, {@code errors<1%},
 * {@code rps>=500}, {@code max<2s}, {@code mean<50ms}, {@code service_p99<100ms}.
 * Latency metrics ({@code pNN}, {@code max}, {@code mean}) use the corrected latency; prefix
 * {@code service_} for service time. {@code errors} takes a percentage or a count.
 */
public record Threshold(String expression, String metric, String op, double limit) {

    private static final Pattern SYNTAX = Pattern.compile(
            "\\s*((?:service_)?(?:p\\d+(?:\\.\\d+)?|max|mean)|errors|rps)\\s*(<=|>=|<|>)\\s*(\\d+(?:\\.\\d+)?)\\s*(us|ms|s|%)?\\s*");

    /** Parses one expression; bad syntax is a {@link LoadException} naming the expression. */
    public static Threshold parse(String expression) {
        Matcher m = SYNTAX.matcher(expression.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new LoadException("bad threshold '" + expression
                    + "' (expected e.g. p99<200ms, errors<1%, rps>=500, max<2s, service_p99<100ms)");
        }
        String metric = m.group(1);
        double value = Double.parseDouble(m.group(3));
        String unit = m.group(4);
        boolean latency = !metric.equals("errors") && !metric.equals("rps");
        double limit;
        if (latency) {
            if (unit == null || unit.equals("%")) {
                throw new LoadException("bad threshold '" + expression + "': latency needs a unit (us, ms or s)");
            }
            limit = switch (unit) {
                case "us" -> value;
                case "ms" -> value * 1_000;
                default -> value * 1_000_000;
            };
        } else if (metric.equals("errors")) {
            if (unit != null && !unit.equals("%")) {
                throw new LoadException("bad threshold '" + expression + "': errors take a % or a count");
            }
            // Stored as a fraction when a percentage, negative-free count otherwise; see actual().
            limit = unit == null ? value : value / 100;
            metric = unit == null ? "errors_count" : "errors";
        } else {
            if (unit != null) {
                throw new LoadException("bad threshold '" + expression + "': rps takes a plain number");
            }
            limit = value;
        }
        if (metric.matches("(service_)?p\\d+(\\.\\d+)?")) {
            double p = Double.parseDouble(metric.substring(metric.indexOf('p') + 1));
            if (p <= 0 || p > 100) {
                throw new LoadException("bad threshold '" + expression + "': percentile must be in (0, 100]");
            }
        }
        return new Threshold(expression.trim(), metric, m.group(2), limit);
    }

    /** The measured value this threshold compares: microseconds, a fraction, a count, or requests/s. */
    public double actual(LoadResult r) {
        boolean service = metric.startsWith("service_");
        org.HdrHistogram.Histogram h = service ? r.service() : r.latency();
        String name = service ? metric.substring("service_".length()) : metric;
        return switch (name) {
            case "errors" -> r.errorRate();
            case "errors_count" -> r.errors();
            case "rps" -> r.achievedRps();
            case "max" -> h.getTotalCount() == 0 ? 0 : h.getMaxValue();
            case "mean" -> h.getTotalCount() == 0 ? 0 : h.getMean();
            default -> h.getValueAtPercentile(Double.parseDouble(name.substring(1)));
        };
    }

    /** True when the result satisfies the condition. An empty histogram fails latency thresholds. */
    public boolean passes(LoadResult r) {
        boolean latency = !metric.startsWith("errors") && !metric.equals("rps");
        if (latency && (metric.startsWith("service_") ? r.service() : r.latency()).getTotalCount() == 0) {
            return false;
        }
        double a = actual(r);
        return switch (op) {
            case "<" -> a < limit;
            case "<=" -> a <= limit;
            case ">" -> a > limit;
            default -> a >= limit;
        };
    }

    /** The actual value in the threshold's own terms, for messages: "312.4ms", "0.52%", "798.1". */
    public String formatActual(LoadResult r) {
        double a = actual(r);
        return switch (metric) {
            case "errors" -> String.format(Locale.ROOT, "%.2f%%", a * 100);
            case "errors_count" -> String.format(Locale.ROOT, "%.0f", a);
            case "rps" -> String.format(Locale.ROOT, "%.1f", a);
            default -> String.format(Locale.ROOT, "%.2fms", a / 1000);
        };
    }
}
