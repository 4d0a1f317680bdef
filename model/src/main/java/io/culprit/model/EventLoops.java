package io.culprit.model;

/**
 * The threads of event-loop servers and clients (Reactor Netty, Netty, Vert.x and Quarkus,
 * Micronaut, gRPC, Ktor), by the names their thread factories give them. A handful of these threads
 * serve every connection, so a call that blocks one (JDBC, a sleep, a blocking HTTP client) stalls
 * every request queued on it: the agent marks the calls made on them, the JFR collectors the waits.
 */
public final class EventLoops {
    private EventLoops() { }

    /**
     * Netty's own factory names a group's threads after its class ({@code nioEventLoopGroup-2-1},
     * {@code epollEventLoopGroup-…}) behind any pool name; Micronaut's server names its group's
     * threads {@code default-eventLoopGroup-5-1} (and a client's, {@code partner-nioEventLoopGroup-7-1}); Ktor's
     * Netty engine runs its handlers' coroutines on its own groups' threads, {@code eventLoopGroupProxy-4-1}.
     */
    public static boolean isEventLoopThread(String name) {
        return name != null && (name.startsWith("reactor-http-") || name.startsWith("reactor-tcp-") || name.contains("EventLoopGroup-")
                || name.contains("eventLoopGroup-") || name.startsWith("eventLoopGroupProxy-")
                || name.startsWith("vert.x-eventloop-thread-") || name.contains("-ELG-"));
    }
}
