package io.culprit.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LifecycleTest {
    @AfterEach
    void forgetTheFakeAgent() {
        Lifecycle.install(null); // other tests in this JVM must not see a stopping agent
    }

    @Test
    void stopDetachesOnceOnItsOwnThreadNamingTheCaller() throws Exception {
        CompletableFuture<String> detachedBy = new CompletableFuture<>();
        List<String> runs = new ArrayList<>();
        Lifecycle.install(caller -> {
            runs.add(Thread.currentThread().getName());
            detachedBy.complete(caller.getName());
        });
        Lifecycle.stop();
        Lifecycle.stop(); // a second stop while detaching is ignored
        assertThat(detachedBy.get(5, TimeUnit.SECONDS)).isEqualTo(Thread.currentThread().getName());
        assertThat(Lifecycle.stopping()).isTrue();
        assertThat(runs).containsExactly("culprit-detach");
    }

    @Test
    void hooksRunLastFirstAndOneFailureDoesNotStopTheRest() {
        List<String> order = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        Lifecycle.addShutdownHook(() -> order.add("first"));
        Lifecycle.addShutdownHook(() -> {
            throw new IllegalStateException("broken hook");
        });
        Lifecycle.addShutdownHook(() -> order.add("last"));
        Lifecycle.runHooks(errors::add);
        assertThat(order).containsExactly("last", "first");
        assertThat(errors).singleElement().extracting(Throwable::getMessage).isEqualTo("broken hook");
        Lifecycle.runHooks(errors::add);
        assertThat(order).as("hooks run once").hasSize(2);
    }
}
