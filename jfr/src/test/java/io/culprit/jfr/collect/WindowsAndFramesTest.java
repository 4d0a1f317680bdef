package io.culprit.jfr.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Windows.Mode;
import io.culprit.model.Series;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts: per-second windows and frame naming. */
class WindowsAndFramesTest {
    @Test
    void sumsMaxesAndGaugesPerWindowWithGapsFilled() {
        Windows w = new Windows("gc", 1000).column("n", Mode.SUM, "count").column("max", Mode.MAX, "ms")
                .column("used", Mode.LAST, "MB");
        w.add(10_100, "n", 1);
        w.add(10_900, "n", 2);
        w.add(10_500, "max", 7);
        w.add(10_600, "max", 3);
        w.add(12_000, "used", 40);
        w.add(12_999, "used", 42);
        Series s = w.build(10_000, 13_000);
        assertThat(s.t()).containsExactly(10_000L, 11_000L, 12_000L);
        assertThat(s.column("n").orElseThrow()).containsExactly(3, 0, 0);
        assertThat(s.column("max").orElseThrow()[0]).isEqualTo(7);
        assertThat(Double.isNaN(s.column("max").orElseThrow()[1])).as("no event: unknown, not 0").isTrue();
        assertThat(s.column("used").orElseThrow()[2]).isEqualTo(42);
        assertThat(s.units()).containsEntry("used", "MB");
    }

    @Test
    void throwSiteSkipsConstructorsAndJdkFrames() {
        List<String> stack = List.of("java.lang.Throwable.<init>:271", "java.lang.ClassNotFoundException.<init>:71",
                "jdk.internal.loader.BuiltinClassLoader.loadClass:641", "java.lang.Class.forName:375",
                "com.acme.Converters.build:42", "com.acme.Api.call:7");
        List<String> fromSite = Frames.fromThrowSite(stack);
        assertThat(fromSite.get(0)).isEqualTo("jdk.internal.loader.BuiltinClassLoader.loadClass:641");
        assertThat(Frames.topNonJdk(fromSite)).isEqualTo("com.acme.Converters.build:42");
        assertThat(ClassLoadingCollector.caller(List.of("org.springframework.boot.loader.LaunchedURLClassLoader.loadClass:151",
                "java.lang.ClassLoader.loadClass:525", "org.springframework.util.ClassUtils.forName:284", "com.acme.Cfg.x:3")))
                .isEqualTo("org.springframework.util.ClassUtils.forName:284");
        assertThat(LockCollector.isLock("java.util.concurrent.locks.ReentrantLock$NonfairSync")).isTrue();
        assertThat(LockCollector.isLock("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject")).isFalse();
        assertThat(LockCollector.isLock("java.util.concurrent.FutureTask")).isTrue();
        assertThat(LockCollector.isLock("java.util.concurrent.CompletableFuture$Signaller")).isTrue();
        // Kotlin's runBlocking parks on its coroutine until it completes: kept (its own kind), for the event loops it holds.
        assertThat(LockCollector.isLock("kotlinx.coroutines.BlockingCoroutine")).isTrue();
        // Idle workers waiting for a task park on their queue or pool: not a wait for anyone's result.
        assertThat(LockCollector.isLock("java.util.concurrent.SynchronousQueue$TransferStack")).isFalse();
        assertThat(LockCollector.isLock("java.util.concurrent.ForkJoinPool")).isFalse();
        // The JDK's HttpClient.send waits for its response on a future: the call's time, not a hand-off.
        assertThat(LockCollector.insideProbedCall(List.of("java.util.concurrent.CompletableFuture.get:2072",
                "jdk.internal.net.http.HttpClientImpl.send:554", "com.acme.Api.item:115"))).isTrue();
        assertThat(LockCollector.insideProbedCall(List.of("java.util.concurrent.FutureTask.get:191",
                "com.acme.Api.fanout:70"))).isFalse();
        assertThat(LockCollector.idleWorker(List.of("java.util.concurrent.LinkedBlockingQueue.poll:455",
                "org.apache.tomcat.util.threads.TaskQueue.poll:89", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask:913"))).isTrue();
        // Jetty 12's reserved thread waits for its next job on a semaphore.
        assertThat(LockCollector.idleWorker(List.of("java.util.concurrent.Semaphore.tryAcquire:415",
                "org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.waitForTask:357",
                "org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.run:296"))).isTrue();
        assertThat(LockCollector.idleWorker(List.of("java.util.concurrent.locks.ReentrantLock.lock:322",
                "com.acme.Api.token:98", "java.util.concurrent.ThreadPoolExecutor.runWorker:1136"))).isFalse();
        // A loop's wake-up handshake inside its own select is not the loop blocked by a request's work.
        assertThat(LockCollector.inSelector(List.of("sun.nio.ch.EPollSelectorImpl.clearInterrupt:262",
                "sun.nio.ch.EPollSelectorImpl.doSelect:135", "sun.nio.ch.SelectorImpl.lockAndDoSelect:129",
                "io.netty.channel.nio.SelectedSelectionKeySetSelector.select:62"))).isTrue();
        assertThat(LockCollector.inSelector(List.of("java.util.concurrent.CompletableFuture.join:2117",
                "com.acme.Pricing.price:48", "io.netty.channel.AbstractChannelHandlerContext.fireChannelRead:356"))).isFalse();
    }

    @Test
    void aStatementExecutionIsFoundUnderTheDriversWaitAndItsPoolProxy() {
        List<String> h2 = List.of("java.lang.Object.wait", "org.h2.mvstore.tx.Transaction.waitForThisToEnd:732",
                "org.h2.mvstore.tx.TransactionMap.lock:329", "org.h2.command.dml.Update.update:70",
                "org.h2.jdbc.JdbcPreparedStatement.executeUpdateInternal:231", "org.h2.jdbc.JdbcPreparedStatement.executeUpdate:199", "com.zaxxer.hikari.pool.HikariProxyPreparedStatement.executeUpdate",
                "com.acme.orders.PlaceOrderService.nextNumber:41");
        assertThat(DbWaitCollector.statementFrame(h2)).as("the pool proxy's executeUpdate").isEqualTo(6);
        assertThat(DbWaitCollector.statementFrame(List.of("java.net.SocketInputStream.read", "com.acme.Client.get:3"))).isEqualTo(-1);
    }

    @Test
    void aLockFrameIsOneThatNamesALockNotAWordThatEndsInLock() {
        assertThat(DbWaitCollector.namesALock("org.h2.mvstore.tx.TransactionMap.lock")).isTrue();
        assertThat(DbWaitCollector.namesALock("com.acme.db.RowLock.acquire")).isTrue();
        assertThat(DbWaitCollector.namesALock("com.acme.db.Pages.tryLockRow")).isTrue();
        // PostgreSQL's driver on its way to the socket read every query waits in: no lock.
        assertThat(DbWaitCollector.namesALock("org.postgresql.core.v3.QueryExecutorImpl.flushIfDeadlockRisk")).isFalse();
        assertThat(DbWaitCollector.namesALock("com.acme.io.BlockingReader.read")).isFalse();
        assertThat(DbWaitCollector.namesALock("com.acme.time.Clock.tick")).isFalse();
    }

    @Test
    void arrayClassesAreNamedAsJavaNamesThem() {
        assertThat(AllocationCollector.javaName("[B")).isEqualTo("byte[]");
        assertThat(AllocationCollector.javaName("[[Ljava.lang.String;")).isEqualTo("java.lang.String[][]");
        assertThat(AllocationCollector.javaName("java.lang.String")).isEqualTo("java.lang.String");
    }
}
