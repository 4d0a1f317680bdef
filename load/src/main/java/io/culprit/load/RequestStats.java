package io.culprit.load;

import org.HdrHistogram.Histogram;

/**
 * One of the plan's requests over the whole measured run: what the client saw per URL, so a slow
 * route stands out from a mix. {@code latency} is in microseconds from the intended send time.
 *
 * @param requests finished: responses of any status + failures
 * @param errors   failures + HTTP status >= 400
 */
public record RequestStats(RequestSpec spec, long requests, long errors, Histogram latency) {
}
