package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two Spring MVC services written outside the lab (session 26), each recorded by
 * {@code culprit diagnose}, whose requests wait for a remote reply through a client culprit has no
 * probe for.
 * <ul>
 * <li>RabbitMQ (16 connections): each request publishes a persistent message and waits for the
 * broker's confirm ({@code waitForConfirmsOrDie}); the fixed twin confirms asynchronously and served
 * 2.8 times the requests. Before, the verdict was lock-contention: "a hand-made pool or queue whose
 * resources are all taken", with the connection's reader thread as the lock's holder, and at
 * culprit.jfc's former 10 ms threshold for Object.wait only 17 % of the wait was seen.
 * <li>gRPC (8 connections): a page asks a pricing service in another JVM for 3 prices through the
 * blocking stub; the fixed twin caches them. Before: "No root cause found", as the stub parks on its
 * call's executor, which neither the park tracer nor the locks table counted.
 * </ul>
 */
class OutsideRemoteRepliesTest {

    @Test
    void aWaitForAReplyReadByTheClientsOwnThreadIsARequestWaitNamedWithTheClientAndItsCaller() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-amqp-confirm-wait"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.place");
        assertThat(f.summary()).isEqualTo("request threads waited 2.3 ms per request in"
                + " com.rabbitmq.client.impl.recovery.AutorecoveringChannel.waitForConfirmsOrDie (called at blind.App.place:58)"
                + " for replies that thread 'AMQP Connection 127.0.0.1:5672' reads off a socket at"
                + " com.rabbitmq.client.impl.Frame.readFrom, which no probe times: 87 % of the mean request's 2.6 ms (64,676"
                + " waits of 2.7 ms on average).");
        assertThat(f.fix()).startsWith("Take the wait off the request path").contains("asynchronously", "outbox", "timeout");
        assertThat(f.explains()).contains("lock-contention", "tail-latency");
        assertThat(f.confirm()).endsWith("\"monitor com.rabbitmq.client.impl.recovery.AutorecoveringChannel waitForConfirmsOrDie"
                + " -c 5\" (calls of AutorecoveringChannel.waitForConfirmsOrDie and their time)");
    }

    @Test
    void lockContentionLeavesTheReplyWaitOutAndWeighsTheRealLockAlone() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-amqp-confirm-wait"));
        // Left: the connection's write lock, which 16 request threads share (3.8 s of ~200 s of request time).
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("top lock java.util.concurrent.locks.ReentrantLock$NonfairSync");
    }

    @Test
    void asynchronousConfirmsLeaveNoWait() {
        Evidence ev = Fixtures.evidence("outside-amqp-confirm-async");
        assertThat(new RequestWaitsRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
        assertThat(new LockContentionRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void aGrpcBlockingCallIsARequestWaitOnItsReplyNamedWithTheStubAndItsCaller() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-grpc-blocking-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.page");
        assertThat(f.summary()).isEqualTo("request threads waited 6.3 ms per request in"
                + " io.grpc.stub.ClientCalls.blockingUnaryCall (called at blind.App.page:84) for replies that the client's own"
                + " threads deliver, which no probe times: 90 % of the mean request's 7 ms (48,384 waits of 2.3 ms on average).");
        assertThat(f.explanation()).endsWith("the wait's blocker is the client's own, for its replies.");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-grpc-blocking-call")).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void cachedRepliesLeaveNoWait() {
        assertThat(new RequestWaitsRule().evaluate(Fixtures.evidence("outside-grpc-cached")).severity()).isEqualTo(Severity.OK);
    }

    private static Table locks(Map<String, Object> row) {
        return new Table("locks", List.copyOf(row.keySet()), List.of(row), Map.of());
    }

    private static Map<String, Object> row(String kind, List<String> owner, List<String> waiter) {
        return Map.of("lockClass", "java.lang.Object", "kind", kind, "events", 10, "blockedMs", 100.0, "ownerThread", "io",
                "ownerStack", owner, "waiterStack", waiter);
    }

    private static final List<String> WAITER = List.of("java.lang.Object.wait", "com.acme.client.Conn.await:10",
            "com.shop.Orders.place:20", "org.springframework.web.servlet.DispatcherServlet.doDispatch:1");

    @Test
    void aReplyNeedsANotifierReadingASocketInTheWaitersOwnLibrary() {
        List<String> reading = List.of("sun.nio.ch.NioSocketImpl.park:186", "java.net.Socket$SocketInputStream.read:67",
                "com.acme.client.Conn.readLoop:40");
        assertThat(ReplyWait.isReply(locks(row("wait", reading, WAITER)), 0)).isTrue();
        assertThat(ReplyWait.caller(locks(row("wait", reading, WAITER)), 0)).isEqualTo("com.shop.Orders.place:20");
        // Kind reply: the collector knew the blocker as a client's (gRPC's), with no notifier to show.
        assertThat(ReplyWait.isReply(locks(row("reply", List.of(), WAITER)), 0)).isTrue();
        // Parked or entering a monitor: contention, whoever the owner is.
        assertThat(ReplyWait.isReply(locks(row("monitor", reading, WAITER)), 0)).isFalse();
        // The notifier computes, or reads a file: a hand-made pool's holder, not a remote reply.
        assertThat(ReplyWait.isReply(locks(row("wait", List.of("com.acme.client.Conn.work:5"), WAITER)), 0)).isFalse();
        assertThat(ReplyWait.isReply(locks(row("wait", List.of("java.io.FileInputStream.readBytes", "com.acme.client.Conn.load:5"),
                WAITER)), 0)).isFalse();
        // Another library's reader (the server's poller) woke it: not this client's reply.
        assertThat(ReplyWait.isReply(locks(row("wait", List.of("sun.nio.ch.EPoll.wait", "org.apache.tomcat.util.net.NioEndpoint$Poller.run:1"),
                WAITER)), 0)).isFalse();
    }
}
