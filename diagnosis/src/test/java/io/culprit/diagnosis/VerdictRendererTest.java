package io.culprit.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import org.junit.jupiter.api.Test;

class VerdictRendererTest {

    @Test
    void verdictLeadsWithTheRootCauseItsChainFixAndConfirmation() {
        String text = VerdictRenderer.render(Diagnosis.run(CaseFile.open(Fixtures.dir("gc-pool-starvation"))));
        assertThat(text).startsWith("culprit verdict — case gc-pool-starvation (fixture, 180 s observed, 145,024 requests)");
        assertThat(text).contains("#1 ROOT CAUSE [CRITICAL] gc-pressure: GC pressure stalls request threads",
                "  chain:     gc-pressure → pool-starvation → tail-latency",
                "  fix:       Give the heap room and fix its size: -Xms equal to -Xmx",
                "  confirm:   culprit exec 4242 \"dashboard -n 5 -i 2000\"");
        // the per-window table puts GC pauses next to pool waits and P99
        assertThat(text).contains("Per window (15 s, UTC)", "gc ms", "pending");
        assertThat(text).containsPattern("08:01:45 +812 +18.56 +1,035 +307 .* 189 ");
        // every hypothesis with its verdict and the evidence that ruled it out
        assertThat(text).contains("Hypotheses, ranked (" + Diagnosis.rules().size() + " checked)",
                "RULED_OUT     OK        pool-size — Connection pool too small for the demand",
                "    Little's Law: 813 rps × 4.3 ms usage = 3.5 connections busy on average, pool has 10: the pool is",
                "NOT_ASSESSED  OK        hot-path-classloading");
        assertThat(text.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(VerdictRenderer.WIDTH));
    }

    @Test
    void healthyCaseSaysSoAndStillListsWhatWasChecked() {
        String text = VerdictRenderer.render(Diagnosis.run(CaseFile.open(Fixtures.dir("healthy"))));
        int n = Diagnosis.rules().size();
        // Not judged: hot-path-classloading, cpu-hotspot and orm-cpu (the fixture has no classloading table and no cpu profile),
        // container-queue (no load.json: the clients' own time is unknown), request-waits (no request-waits table),
        // connection-held (its calls table predates the heldMs column), stuck-threads (no stuck-threads table),
        // thread-churn (no thread-starts table), event-loop-blocking (its calls table predates eventLoopMs),
        // process-spawn (no cpu profile), interpreted-code (no jit table), object-pool (no object-pools table),
        // keep-alive-refused (no load.json), scheduled-work (no cpu profile), caller-runs (neither a cpu profile nor waits tables),
        // cache-misses and result-fetches (no cpu profile), allocation-stalls (its gc series predates stallMs),
        // proxy-bypass (its calls table predates proxyBypass), catalog-reads (its calls table predates catalogVia),
        // validation-cpu (no cpu profile), over-fetch (its calls table predates rows).
        assertThat(text).contains("No root cause found: " + (n - 22) + " of " + n + " hypotheses judged on evidence, none WARN or CRITICAL.",
                "RULED_OUT     OK        gc-pressure").doesNotContain("#1 ROOT CAUSE", "Per window");
    }
}
