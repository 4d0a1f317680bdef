package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;

/**
 * A dependency call that opens a new connection every time: a client built per call, or a pool
 * bypassed, so each call pays a TCP connect (and the client's set-up and the close) before its
 * command, and the call's time reads as a slow dependency. Read from the CPU profile: samples
 * under the method that makes the call that are inside a socket connect. A service outside the
 * lab that built a {@code new Jedis(host, port)} per request read slow-calls on Redis GET with
 * "make the call cheaper": 39 % of the samples under its handler were connecting.
 */
final class ConnectPerCall {
    /** A fifth of the caller's CPU samples connecting is a connection per call, not a reconnect. */
    static final double MIN_SHARE = 0.2;

    private static final String[] CONNECT = {
        "java.net.Socket.connect", "sun.nio.ch.Net.connect", "sun.nio.ch.NioSocketImpl.connect",
        "java.net.AbstractPlainSocketImpl.connect", "java.net.PlainSocketImpl.socketConnect", "sun.nio.ch.SocketChannelImpl.connect"
    };

    private ConnectPerCall() { }

    /**
     * "; 39 % of the CPU samples under Api.flag open a new connection for it (a socket connect): the
     * client connects on every call", or "" when the profile does not say so.
     */
    static String clause(Evidence ev, String caller, Numbers n) {
        double share = share(ev, caller);
        if (!(share >= MIN_SHARE)) return "";
        return "; " + n.tag(Fmt.pct(share), ev.cpuRef()) + " of the CPU samples under " + Frames.shortName(caller)
                + " open a new connection for it (a socket connect): the client connects on every call";
    }

    /** The fix for a client that connects per call, by the call's kind. */
    static String fix(String kind) {
        return switch (kind) {
            case "redis" -> "Build the Redis client once and share it: a JedisPool or JedisPooled (Jedis), one RedisClient and"
                    + " its thread-safe connection (Lettuce), or Spring Data Redis's connection factory; a Jedis built per"
                    + " call opens and closes a TCP connection every time.";
            case "sql" -> "Take connections from a pool (HikariCP, or the DataSource Spring Boot builds) instead of opening one"
                    + " per call.";
            default -> "Build the client once and share it, with keep-alive, so that calls reuse its pooled connections.";
        };
    }

    private static double share(Evidence ev, String caller) {
        if (caller == null || caller.isEmpty()) return Double.NaN;
        CpuProfile p = ev.cpuProfileIfAny().orElse(null);
        if (p == null || p.samples() == 0) return Double.NaN;
        String method = Frames.stripLine(caller);
        CpuProfile under = p.only(st -> Frames.hasMethod(st, method));
        if (under.samples() == 0) return Double.NaN;
        return (double) under.only(st -> Frames.anyStartsWith(st, CONNECT)).samples() / under.samples();
    }
}
