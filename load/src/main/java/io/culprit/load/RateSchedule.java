package io.culprit.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The arrival process of the open model: a piecewise-linear request rate over time (k6's
 * ramping-arrival-rate stages). It answers "when is request k intended to go out?" exactly, so the
 * generator stamps every request with its intended time even when it wakes up late — latency is
 * measured from that stamp (coordinated-omission correction, as in wrk2 and Hyperfoil).
 */
public final class RateSchedule {

    /** Ramp linearly from the previous stage's rate to {@code targetRate} (requests/s) over {@code duration}. */
    public record Stage(double targetRate, Duration duration) {
        public Stage {
            if (!(targetRate >= 0) || Double.isInfinite(targetRate)) {
                throw new LoadException("rate must be >= 0, got " + targetRate);
            }
            if (duration == null || duration.isNegative() || duration.isZero()) {
                throw new LoadException("stage duration must be > 0");
            }
        }
    }

    private final double startRate;
    private final List<Stage> stages;
    private final long[] stageStartNanos;
    private final double[] stageStartCount;
    private final double[] stageStartRate;
    private final long totalNanos;
    private final double totalCount;

    public RateSchedule(double startRate, List<Stage> stages) {
        if (!(startRate >= 0) || Double.isInfinite(startRate)) {
            throw new LoadException("rate must be >= 0, got " + startRate);
        }
        if (stages.isEmpty()) {
            throw new LoadException("a rate schedule needs at least one stage");
        }
        this.startRate = startRate;
        this.stages = List.copyOf(stages);
        int n = stages.size();
        stageStartNanos = new long[n];
        stageStartCount = new double[n];
        stageStartRate = new double[n];
        long t = 0;
        double count = 0;
        double rate = startRate;
        for (int i = 0; i < n; i++) {
            Stage s = stages.get(i);
            stageStartNanos[i] = t;
            stageStartCount[i] = count;
            stageStartRate[i] = rate;
            double seconds = s.duration().toNanos() / 1e9;
            count += (rate + s.targetRate()) / 2 * seconds;
            t += s.duration().toNanos();
            rate = s.targetRate();
        }
        totalNanos = t;
        totalCount = count;
        if (totalCount < 1) {
            throw new LoadException("the rate schedule sends no request (rate too low for the duration)");
        }
    }

    /** A constant {@code rate} (requests/s) for {@code duration}. */
    public static RateSchedule constant(double rate, Duration duration) {
        if (!(rate > 0)) {
            throw new LoadException("rate must be > 0, got " + rate);
        }
        return new RateSchedule(rate, List.of(new Stage(rate, duration)));
    }

    /** This schedule preceded by {@code warmup} at its starting rate (or the first target if it starts at 0). */
    public RateSchedule withWarmup(Duration warmup) {
        if (warmup.isZero()) {
            return this;
        }
        double r = startRate > 0 ? startRate : stages.get(0).targetRate();
        List<Stage> all = new ArrayList<>();
        all.add(new Stage(r, warmup));
        if (startRate != r) {
            // The measured part still starts from its own start rate: a one-nanosecond step down.
            all.add(new Stage(startRate, Duration.ofNanos(1)));
        }
        all.addAll(stages);
        return new RateSchedule(r, all);
    }

    public double startRate() {
        return startRate;
    }

    public List<Stage> stages() {
        return stages;
    }

    public long totalNanos() {
        return totalNanos;
    }

    /** Number of requests whose intended time falls before the end of the schedule. */
    public long totalRequests() {
        long k = (long) Math.ceil(totalCount);
        return offsetNanos(k - 1) < totalNanos ? k : k - 1;
    }

    /** Intended requests in [0, offsetNanos): the integral of the rate. */
    public double countAt(long offsetNanos) {
        if (offsetNanos >= totalNanos) {
            return totalCount;
        }
        if (offsetNanos <= 0) {
            return 0;
        }
        int i = stageAt(offsetNanos);
        double t = (offsetNanos - stageStartNanos[i]) / 1e9;
        double r0 = stageStartRate[i];
        double slope = slope(i);
        return stageStartCount[i] + r0 * t + slope * t * t / 2;
    }

    /** Target rate (requests/s) at an offset. */
    public double rateAt(long offsetNanos) {
        if (offsetNanos >= totalNanos) {
            return stages.get(stages.size() - 1).targetRate();
        }
        int i = stageAt(Math.max(0, offsetNanos));
        return stageStartRate[i] + slope(i) * (Math.max(0, offsetNanos) - stageStartNanos[i]) / 1e9;
    }

    /**
     * Intended send offset of request {@code k} (0-based): the time t at which countAt(t) reaches k.
     * Returns a value >= totalNanos when request k does not exist.
     */
    public long offsetNanos(long k) {
        if (k >= totalCount) {
            return Long.MAX_VALUE;
        }
        int i = stages.size() - 1;
        while (i > 0 && stageStartCount[i] > k) {
            i--;
        }
        double c = k - stageStartCount[i];
        double r0 = stageStartRate[i];
        double a = slope(i) / 2;
        double t;
        if (c <= 0) {
            t = 0;
        } else if (Math.abs(a) < 1e-12) {
            t = r0 > 0 ? c / r0 : 0;
        } else {
            // Solve a t^2 + r0 t - c = 0 for the smallest non-negative root; the stable form avoids cancellation.
            double disc = Math.max(0, r0 * r0 + 4 * a * c);
            t = 2 * c / (r0 + Math.sqrt(disc));
        }
        return stageStartNanos[i] + (long) (t * 1e9);
    }

    private double slope(int i) {
        double seconds = stages.get(i).duration().toNanos() / 1e9;
        return (stages.get(i).targetRate() - stageStartRate[i]) / seconds;
    }

    private int stageAt(long offsetNanos) {
        int i = stages.size() - 1;
        while (i > 0 && stageStartNanos[i] > offsetNanos) {
            i--;
        }
        return i;
    }
}
