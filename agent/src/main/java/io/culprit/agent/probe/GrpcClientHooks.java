package io.culprit.agent.probe;

import java.util.List;

/**
 * Calls of gRPC-Java's client, as kind "grpc" and the full method name ("fleet.Pricing/Quote").
 * A blocking stub's unary call is timed around {@code ClientCalls.blockingUnaryCall} (and the v2
 * stubs' {@code blockingV2UnaryCall}) on the caller's thread, which waits for it there: whether it
 * held a pooled connection or blocked an event loop meanwhile is that thread's. Every other call
 * (future and async stubs, a {@code ClientCall} of the application's own) is timed from the
 * construction of its {@code ClientCallImpl} (on the caller's thread, so the call site is the
 * application's; the stub starts it at once) to its {@code closeObserver}, where gRPC hands the
 * listener the call's status, on the call's executor: its start and stats wait in a
 * {@link PendingCalls} table keyed by the call. The end is read at closeObserver's entry, before
 * the listener runs the application's callback. A blocking stub's own ClientCallImpl is told
 * apart by the executor its stub gives it ({@code ClientCalls}' threadless executors) and left to
 * the first hook. A status gRPC maps to HTTP's 5xx fails the call ({@link GrpcStatus}).
 */
final class GrpcClientHooks {

    static final String CLIENT_CALLS = "io.grpc.stub.ClientCalls";
    static final String CLIENT_CALL = "io.grpc.internal.ClientCallImpl";
    static final String KIND = "grpc";
    /** The executors ClientCalls gives a blocking stub's call: {@code ThreadlessExecutor}, {@code ThreadSafeThreadlessExecutor}. */
    private static final String BLOCKING_EXECUTORS = CLIENT_CALLS + "$";

    private final CallProbe calls;
    private final PendingCalls pending = new PendingCalls();
    private final GrpcStatus status = new GrpcStatus();
    private final Getter fullMethodName = new Getter("getFullMethodName");

    GrpcClientHooks(CallProbe calls) {
        this.calls = calls;
    }

    List<Hook> hooks() {
        return List.of(blocking("blockingUnaryCall"), blocking("blockingV2UnaryCall"),
                new Hook(CLIENT_CALL, "<init>", "(Lio/grpc/MethodDescriptor;Ljava/util/concurrent/Executor;",
                        Hook.EXIT | Hook.SELF | Hook.ARG0 | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object method, Object executor, Object returned, Throwable thrown) {
                        if (thrown != null || executor != null && executor.getClass().getName().startsWith(BLOCKING_EXECUTORS)) return;
                        Object name = fullMethodName.call(method);
                        if (name instanceof String) pending.put(self, System.nanoTime(), calls.stats(KIND, (String) name));
                    }
                },
                new Hook(CLIENT_CALL, "closeObserver", "(Lio/grpc/ClientCall$Listener;Lio/grpc/Status;", Hook.TIMED | Hook.SELF | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object listener, Object s, Object returned, Throwable thrown) {
                        // start is closeObserver's entry: the call's end, before the listener's callback.
                        calls.endPending(pending, self, start, status.failed(s) ? JdkHttpHooks.ServerError.INSTANCE : null);
                    }
                });
    }

    /** {@code ClientCalls.<name>(Channel, MethodDescriptor, CallOptions, request)}, timed on the caller's thread. */
    private Hook blocking(String name) {
        return new Hook(CLIENT_CALLS, name, "(Lio/grpc/Channel;Lio/grpc/MethodDescriptor;", Hook.TIMED | Hook.ARG1) {
            @Override
            public void probeExit(int id, long start, Object self, Object channel, Object method, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                Object n = fullMethodName.call(method);
                if (!(n instanceof String)) return;
                calls.record(end, KIND, (String) n, (String) n, start, status.failed(thrown) ? thrown : null);
            }
        };
    }
}
