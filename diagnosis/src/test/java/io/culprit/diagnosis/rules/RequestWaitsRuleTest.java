package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.flat;
import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** request-waits on the two recorded services outside the lab, and against small shares and missing evidence. */
class RequestWaitsRuleTest {
    @TempDir Path dir;

    @Test
    void aBackOffThatSleepsIsTheRequestAndNamedWithItsMethod() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-sleep-backoff"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("request threads slept 14.2 ms per request in Thread.sleep at blind.BlindApp$Api.backoff:"
                + " 92 % of the mean request's 15.4 ms (7,738 waits, the longest 18.3 ms).");
        assertThat(f.fix()).startsWith("Do not sleep on a request thread");
        assertThat(f.confirm()).isEqualTo("culprit exec 23799 \"trace blind.BlindApp\\$Api backoff '#cost > 7'\""
                + " (the time each call of BlindApp$Api.backoff spends there)");
    }

    @Test
    void aRawSocketDependencyIsNamedByItsAddressAndTheCodeThatWaited() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-raw-socket"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("request threads waited 28.5 ms per request on the socket to localhost:33499, which no probe times,"
                + " at blind.BlindApp$Api.quote: 92 % of the mean request's 31 ms");
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.quote");
        assertThat(f.fix()).contains("cache what localhost:33499 answers");
    }

    @Test
    void aSmallShareIsRuledOutAndNoWaitsSaySo() {
        var small = CaseBuilder.in(dir, 10, 2).series("requests", 1000, "rps", flat(10, 100), "p50Ms", flat(10, 40))
                .tableWithMeta("request-waits", Map.of(), row("kind", "sleep", "target", "Thread.sleep", "site", "a.B.c",
                        "events", 1000, "waitMs", 2000.0, "maxMs", 3.0))
                .evidence();
        Finding f = new RequestWaitsRule().evaluate(small);
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("slept 2 ms per request", "5.0 % of the mean request's 40 ms").endsWith("too small a share to be the cause.");

        var none = CaseBuilder.in(dir.resolve("b"), 10, 2).series("requests", 1000, "rps", flat(10, 100), "p50Ms", flat(10, 40))
                .tableWithMeta("request-waits", Map.of()).evidence();
        assertThat(new RequestWaitsRule().evaluate(none).summary()).startsWith("no request thread slept");

        var missing = CaseBuilder.in(dir.resolve("c"), 10, 2).series("requests", 1000, "rps", flat(10, 100)).evidence();
        assertThat(new RequestWaitsRule().evaluate(missing).verdict()).isEqualTo(Verdict.NOT_ASSESSED);
    }

    /**
     * The delayed-ACK reading needs the waits' floor at the timer: the same mean with waits from 6 ms
     * is a peer's own spread, and a floor at 40 ms with a mean far past it is not the timer either.
     */
    @Test
    void onlyWaitsPinnedAtTheTimerReadAsNagle() {
        assertThat(socketWaits("a", 39.8, 43.9).summary()).contains("no wait was shorter than 39.8 ms", "delayed-ACK");
        assertThat(socketWaits("a", 39.8, 43.9).fix()).startsWith("Send each message in one write");
        assertThat(socketWaits("b", 6.0, 43.9).summary()).doesNotContain("delayed-ACK");
        assertThat(socketWaits("b2", 6.0, 43.9).fix()).startsWith("Make the wait shorter or rarer");
        assertThat(socketWaits("c", 41.0, 80.0).summary()).doesNotContain("delayed-ACK");
    }

    private Finding socketWaits(String sub, double minMs, double meanMs) {
        var ev = CaseBuilder.in(dir.resolve(sub), 10, 2).series("requests", 1000, "rps", flat(10, 100), "p50Ms", flat(10, meanMs))
                .tableWithMeta("request-waits", Map.of(), row("kind", "socket", "target", "localhost:9000", "site", "a.B.read",
                        "events", 1000, "waitMs", 1000 * meanMs, "maxMs", meanMs * 1.3, "minMs", minMs))
                .evidence();
        return new RequestWaitsRule().evaluate(ev);
    }
}
