package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import acme.FleetCalls;
import io.culprit.agent.instrument.Instrumenter;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC-Java 1.85 on its shaded Netty transport, server and client in one JVM: fleet.Dispatch/Assign
 * answers "ok:" + the request, "unavailable" with UNAVAILABLE, "missing" with NOT_FOUND, and "hold"
 * only once the test releases it (the client's deadline passes first and resets the stream).
 * Calls come from application code (acme.FleetCalls) through a blocking stub's call and a future
 * stub's; both are used once before the probes start, as in a service that has served traffic.
 */
class GrpcProbeTest {

    private Server server;
    private ManagedChannel channel;
    private final CountDownLatch released = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        ServerServiceDefinition dispatch = ServerServiceDefinition.builder("fleet.Dispatch")
                .addMethod(FleetCalls.ASSIGN, ServerCalls.asyncUnaryCall((request, reply) -> {
                    switch (request) {
                        case "unavailable": reply.onError(Status.UNAVAILABLE.withDescription("depot offline").asRuntimeException()); return;
                        case "missing": reply.onError(Status.NOT_FOUND.asRuntimeException()); return;
                        case "hold":
                            try {
                                released.await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            break;
                        default:
                    }
                    reply.onNext("ok:" + request);
                    reply.onCompleted();
                })).build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(dispatch).build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    }

    @AfterEach
    void stop() throws Exception {
        released.countDown();
        Instrumenter.resetAll();
        Probes.stop();
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void callsAreRequestsOfTheirMethodWithServerSideFailures() throws Exception {
        assertThat(FleetCalls.assign(channel, "warm")).isEqualTo("ok:warm");  // loads gRPC's classes before the weave
        assertThat(FleetCalls.assignLater(channel, "warm")).isEqualTo("ok:warm");
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(GrpcServerHooks.TRANSPORT_LISTENER + ".streamCreated"))
                .anyMatch(w -> w.startsWith(GrpcServerHooks.STREAM + ".close"))
                .anyMatch(w -> w.startsWith(GrpcClientHooks.CLIENT_CALLS + ".blockingUnaryCall"))
                .anyMatch(w -> w.startsWith(GrpcClientHooks.CLIENT_CALL + ".closeObserver"));

        for (int i = 0; i < 5; i++) assertThat(FleetCalls.assign(channel, "truck-" + i)).isEqualTo("ok:truck-" + i);
        for (int i = 0; i < 3; i++) assertThat(FleetCalls.assignLater(channel, "van-" + i)).isEqualTo("ok:van-" + i);
        assertThatThrownBy(() -> FleetCalls.assign(channel, "unavailable")).isInstanceOf(StatusRuntimeException.class);
        assertThatThrownBy(() -> FleetCalls.assign(channel, "missing")).isInstanceOf(StatusRuntimeException.class);
        assertThatThrownBy(() -> FleetCalls.assignLater(channel, "unavailable")).isInstanceOf(ExecutionException.class);

        // 11 calls: 6 blocking and 3 future, each counted once, 2 failed (UNAVAILABLE; NOT_FOUND answers the request).
        Map<String, Object> calls = CallRows.waitForRow(p, GrpcClientHooks.KIND, "fleet.Dispatch/Assign", 11L);
        assertThat(calls).containsEntry("count", 11L).containsEntry("errors", 2L);
        assertThat(String.valueOf(calls.get("caller"))).as("the application's call site").startsWith("acme.FleetCalls.");

        assertThat(CallRows.until(() -> p.requests.count() >= 11)).as("11 requests counted, not " + p.requests.count()).isTrue();
        assertThat(CallRows.route(p, "gRPC fleet.Dispatch/Assign")).containsEntry("count", 11L);
        assertThat(CallRows.until(() -> CallRows.requestErrors(p) == 2)).as("the two UNAVAILABLE, not " + CallRows.requestErrors(p)).isTrue();
        assertThat(CallRows.until(() -> p.windows.lastRequests().getOrDefault("inFlight", -1.0) == 0)).as("none left in flight").isTrue();
    }

    @Test
    void aCallTheClientGivesUpOnEndsAtTheResetAsAFailure() throws Exception {
        assertThat(FleetCalls.assign(channel, "warm")).isEqualTo("ok:warm");
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThatThrownBy(() -> FleetCalls.assignWithin(channel, "hold", 150)).isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("DEADLINE_EXCEEDED");
        assertThat(CallRows.until(() -> p.requests.count() >= 1)).as("the reset request counted while its handler still holds").isTrue();
        assertThat(CallRows.until(() -> CallRows.requestErrors(p) == 1)).as("as failed").isTrue();
        assertThat(CallRows.waitForRow(p, GrpcClientHooks.KIND, "fleet.Dispatch/Assign", 1L)).containsEntry("errors", 1L);
        released.countDown();  // the handler's late answer ends nothing twice
        assertThat(FleetCalls.assign(channel, "after")).isEqualTo("ok:after");
        assertThat(CallRows.until(() -> p.requests.count() >= 2)).isTrue();
        assertThat(p.requests.count()).isEqualTo(2);
    }

    /** collect start renews the probes on the weave in place (fresh counters, the same woven ids): they count on. */
    @Test
    void renewedProbesCountOnTheWeaveInPlace() throws Exception {
        assertThat(FleetCalls.assign(channel, "warm")).isEqualTo("ok:warm");
        Probes.ensure(ProbeContext.INST);
        Probes p = Probes.renew(ProbeContext.INST);
        for (int i = 0; i < 4; i++) assertThat(FleetCalls.assign(channel, "bus-" + i)).isEqualTo("ok:bus-" + i);
        assertThat(CallRows.waitForRow(p, GrpcClientHooks.KIND, "fleet.Dispatch/Assign", 4L)).containsEntry("count", 4L);
        assertThat(CallRows.until(() -> p.requests.count() >= 4)).as("4 requests counted, not " + p.requests.count()).isTrue();
    }

    /** A channel built per call is a construction of the application's, counted with the code that builds it. */
    @Test
    void aChannelPerCallIsCountedAsAConstructionOfItsCaller() throws Exception {
        assertThat(FleetCalls.assignOnNewChannel(server.getPort(), "warm")).isEqualTo("ok:warm");
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 5; i++) assertThat(FleetCalls.assignOnNewChannel(server.getPort(), "cab-" + i)).isEqualTo("ok:cab-" + i);
        List<Map<String, Object>> rows = p.construction.rows(5);
        assertThat(rows).filteredOn(r -> "io.grpc.internal.ManagedChannelImpl".equals(r.get("type"))).singleElement()
                .satisfies(r -> assertThat(r).containsEntry("count", 5L))
                .satisfies(r -> assertThat((String) r.get("caller")).startsWith("acme.FleetCalls.assignOnNewChannel:"));
    }
}
