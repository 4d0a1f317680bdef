package acme;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Application code outside culprit's packages that calls a gRPC service the way generated stubs
 * do (a blocking stub's {@code blockingUnaryCall}, a future stub's {@code futureUnaryCall}), with
 * UTF-8 strings as messages so that no protobuf code is generated for the test.
 */
public final class FleetCalls {

    public static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    public static final MethodDescriptor<String, String> ASSIGN = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("fleet.Dispatch/Assign")
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    private FleetCalls() { }

    /** A blocking stub's call. */
    public static String assign(Channel channel, String request) {
        return ClientCalls.blockingUnaryCall(channel, ASSIGN, CallOptions.DEFAULT, request);
    }

    /** The same call with a deadline of {@code ms}. */
    public static String assignWithin(Channel channel, String request, long ms) {
        return ClientCalls.blockingUnaryCall(channel, ASSIGN, CallOptions.DEFAULT.withDeadlineAfter(ms, TimeUnit.MILLISECONDS), request);
    }

    /** A call on a channel of its own, built for it and shut down after it: a channel per request. */
    public static String assignOnNewChannel(int port, String request) throws InterruptedException {
        io.grpc.ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext().build();
        try {
            return assign(channel, request);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** A future stub's call, waited for. */
    public static String assignLater(Channel channel, String request) throws InterruptedException, ExecutionException {
        return ClientCalls.futureUnaryCall(channel.newCall(ASSIGN, CallOptions.DEFAULT), request).get();
    }
}
