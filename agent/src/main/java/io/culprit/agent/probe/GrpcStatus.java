package io.culprit.agent.probe;

/**
 * Which gRPC status codes say the call failed on the server's side, as HTTP's 5xx do: UNKNOWN,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS (gRPC's
 * own mapping to HTTP). The others answer the request (NOT_FOUND, INVALID_ARGUMENT, ALREADY_EXISTS,
 * PERMISSION_DENIED...) or are the caller's own doing (CANCELLED), as a 4xx is.
 */
final class GrpcStatus {

    /** Bit c set: code c is a server-side failure (2, 4, 8, 12, 13, 14, 15). */
    private static final int FAILED_CODES = 1 << 2 | 1 << 4 | 1 << 8 | 1 << 12 | 1 << 13 | 1 << 14 | 1 << 15;

    private final Getter code = new Getter("getCode");
    private final Getter value = new Getter("value");
    private final Getter status = new Getter("getStatus");

    /** Whether {@code io.grpc.Status} {@code s} is a server-side failure; an unreadable one is not. */
    boolean failed(Object s) {
        double c = value.number(code.call(s));
        return c == c && c >= 0 && c < 32 && (FAILED_CODES & (1 << (int) c)) != 0;
    }

    /** Whether {@code s} is OK (code 0); an unreadable one reads as not OK. */
    boolean ok(Object s) {
        return value.number(code.call(s)) == 0;
    }

    /** Whether {@code thrown} is a StatusRuntimeException (or StatusException) with a server-side failure, or any other throwable. */
    boolean failed(Throwable thrown) {
        if (thrown == null) return false;
        Object s = status.call(thrown);
        return s == null || failed(s);
    }
}
