package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallSiteTest {

    @Test
    void aCallFromAScheduledTaskIsBackgroundAndOneFromAPlainThreadIsNot() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        Timer timer = new Timer(true);
        try {
            assertThat(scheduler.schedule(CallSite::here, 1, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS).background).isTrue();
            java.util.concurrent.ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                assertThat(pool.submit(CallSite::here).get(10, TimeUnit.SECONDS).background).as("a task handed to a plain pool").isFalse();
            } finally {
                pool.shutdownNow();
            }
            CompletableFuture<CallSite> fromTimer = new CompletableFuture<>();
            timer.schedule(new TimerTask() {
                @Override
                public void run() {
                    fromTimer.complete(CallSite.here());
                }
            }, 1);
            assertThat(fromTimer.get(10, TimeUnit.SECONDS).background).isTrue();
            assertThat(CallSite.here().background).as("the test's own thread").isFalse();
        } finally {
            scheduler.shutdownNow();
            timer.cancel();
        }
    }
}
