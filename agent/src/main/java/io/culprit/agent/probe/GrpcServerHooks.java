package io.culprit.agent.probe;

import java.util.List;

/**
 * Requests of a gRPC-Java server (any transport: grpc-netty, grpc-netty-shaded, OkHttp's): a call
 * is in flight from the transport's {@code streamCreated} (its headers read, on the transport's
 * thread, before the call waits for the application's executor) to the stream's
 * {@code close(Status, Metadata)} (the application closed the call: its response and trailers are
 * handed to the transport) or its {@code cancel} (the server's deadline), or to the stream's
 * listener hearing it closed with a status that is not OK (the client reset it: a deadline or a
 * cancel on its side). The route is "gRPC" and the full method name ("fleet.Dispatch/Assign"). A
 * status that gRPC maps to HTTP's 5xx ({@link GrpcStatus}) marks it failed. The start and route
 * ride in a {@link PendingRequests} table keyed by the stream.
 *
 * <p>The start is noted at {@code streamCreated}'s exit, with the time read at its entry: the
 * method name is its second argument. A unary call cannot close before then, as its request
 * message reaches the application only after the transport's thread is back from the headers; a
 * call an interceptor closes at once on the executor could, and would then not be counted.
 */
final class GrpcServerHooks {

    static final String TRANSPORT_LISTENER = "io.grpc.internal.ServerImpl$ServerTransportListenerImpl";
    static final String STREAM = "io.grpc.internal.AbstractServerStream";
    static final String STREAM_LISTENER = "io.grpc.internal.ServerImpl$JumpToApplicationThreadServerStreamListener";
    static final String ROUTE_METHOD = "gRPC";

    private final RequestProbe requests;
    private final PendingRequests pending;
    private final GrpcStatus status = new GrpcStatus();

    GrpcServerHooks(RequestProbe requests) {
        this.requests = requests;
        this.pending = new PendingRequests(requests);
    }

    List<Hook> hooks() {
        return List.of(
                new Hook(TRANSPORT_LISTENER, "streamCreated", "(Lio/grpc/internal/ServerStream;Ljava/lang/String;",
                        Hook.TIMED | Hook.ARG0 | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object stream, Object method, Object returned, Throwable thrown) {
                        if (thrown == null && method instanceof String) pending.start(stream, start, requests.route(ROUTE_METHOD, (String) method));
                    }
                },
                new Hook(STREAM, "close", "(Lio/grpc/Status;Lio/grpc/Metadata;)", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object s) {
                        long end = System.nanoTime();
                        pending.end(self, end, status.failed(s));
                        return 0L;
                    }
                },
                new Hook(STREAM, "cancel", "(Lio/grpc/Status;)", Hook.ENTER | Hook.SELF) {
                    @Override
                    public long probeEnter(int id, Object self, Object s) {
                        pending.end(self, System.nanoTime(), true);
                        return 0L;
                    }
                },
                new Hook(STREAM_LISTENER, "closed", "(Lio/grpc/Status;)", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object s) {
                        long end = System.nanoTime();
                        // OK: the call closed normally, already ended at the stream's close.
                        if (!status.ok(s)) pending.end(Reflect.field(self, "stream"), end, true);
                        return 0L;
                    }
                });
    }
}
