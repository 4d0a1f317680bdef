package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.it.targets.LockTarget;
import io.culprit.cli.it.targets.SpinTarget;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code thread} through the real CLI against real targets on each installed JDK. */
class ThreadIT {

    static List<String> javaHomes() {
        return TargetJvm.javaHomes();
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void theSpinningThreadIsTheBusiest(String javaHome) {
        try (TargetJvm t = TargetJvm.start(javaHome, SpinTarget.class)) {
            Cli.Result r = Cli.run("exec", Long.toString(t.pid()), "thread -n 1 -i 500; stop");
            assertThat(r.code).as("%s\ntarget:\n%s", r, t.log()).isZero();
            String firstThread = r.out.lines().filter(l -> l.contains("Id=")).findFirst().orElse("");
            assertThat(firstThread).as(r.toString()).contains("\"spinner\"");
            assertThat(r.out).contains("SpinTarget");
            assertThat(t.serves()).isTrue();
        }
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void blockingNamesTheHolderOfAContendedMonitor(String javaHome) {
        try (TargetJvm t = TargetJvm.start(javaHome, LockTarget.class, "-Dlock=monitor")) {
            Cli.Result r = Cli.run("exec", Long.toString(t.pid()), "thread -b; stop");
            assertThat(r.code).as("%s\ntarget:\n%s", r, t.log()).isZero();
            assertThat(r.out.lines().findFirst().orElse("")).as(r.toString())
                    .startsWith("\"holder\"").contains("HotMonitor").contains("blocking 3 thread(s)");
            assertThat(r.out).contains("LockTarget.holdMonitor", "\"waiter-1\"", "\"waiter-2\"", "\"waiter-3\"");
            assertThat(t.serves()).isTrue();
        }
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void blockingNamesTheHolderOfAContendedReentrantLock(String javaHome) {
        try (TargetJvm t = TargetJvm.start(javaHome, LockTarget.class, "-Dlock=reentrant")) {
            Cli.Result r = Cli.run("exec", Long.toString(t.pid()), "thread -b; stop");
            assertThat(r.code).as("%s\ntarget:\n%s", r, t.log()).isZero();
            assertThat(r.out.lines().findFirst().orElse("")).as(r.toString())
                    .startsWith("\"holder\"").contains("ReentrantLock").contains("blocking 3 thread(s)");
            assertThat(r.out).contains("LockTarget.holdLock");
            assertThat(t.serves()).isTrue();
        }
    }
}
