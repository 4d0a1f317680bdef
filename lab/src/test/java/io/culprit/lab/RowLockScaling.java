package io.culprit.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * Throughput with 8 clients divided by throughput with 1 client, for row-lock and its fixed twin,
 * measured back to back. One round: CI's runs read ~1.05 for the faulty twin and ~7 for the fixed
 * one, against assertions at 1.5 and 2, a margin no burst of load from elsewhere closes.
 */
final class RowLockScaling {

    private RowLockScaling() {
    }

    record Ratios(double faulty, double fixed) {
    }

    static Ratios measure(LabMode mode, HttpRequest req) throws InterruptedException {
        double[] one = new double[2];
        double[] eight = new double[2];
        mode.set(Scenario.ROW_LOCK, true);
        LabLoad.closed(req, 4, Duration.ofSeconds(2));
        for (int twin = 0; twin < 2; twin++) {
            boolean fixed = twin == 1;
            mode.set(Scenario.ROW_LOCK, fixed);
            LabLoad.Result r1 = LabLoad.closed(req, 1, Duration.ofSeconds(3));
            LabLoad.Result r8 = LabLoad.closed(req, 8, Duration.ofSeconds(3));
            System.out.println("  row-lock" + (fixed ? " fixed" : "") + ": 1 client " + r1 + "\n    8 clients " + r8);
            assertThat(r1.errors() + r8.errors()).isZero();
            one[twin] = r1.throughput();
            eight[twin] = r8.throughput();
        }
        return new Ratios(eight[0] / one[0], eight[1] / one[1]);
    }
}
