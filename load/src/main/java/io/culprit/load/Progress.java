package io.culprit.load;

/**
 * A snapshot for the live progress line.
 *
 * @param elapsedNanos  time since the run began, warmup included
 * @param totalNanos    planned length of the run, warmup included
 * @param warmingUp     true while nothing is recorded yet
 * @param requests      measured requests finished so far
 * @param errors        measured errors so far
 * @param rps           finished requests per second over the last tick
 * @param p50Micros     median corrected latency so far, microseconds (0 when nothing recorded)
 * @param p99Micros     99th percentile corrected latency so far, microseconds
 */
public record Progress(long elapsedNanos, long totalNanos, boolean warmingUp, long requests, long errors,
                       double rps, long p50Micros, long p99Micros) {
}
