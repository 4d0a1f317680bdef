package io.culprit.diagnosis.rules;

import io.culprit.model.Table;

/**
 * Socket waits that last as long as TCP's delayed-ACK timer: the stall of a message sent in two
 * small writes with Nagle's algorithm on. Nagle holds the second write until the first is
 * acknowledged; the peer, still waiting for the rest of the message, has nothing to send the
 * acknowledgement with and delays it by its timer (40 ms on Linux). A service outside the lab
 * that wrote a line protocol's header and body separately waited 44 ms on every call, and was
 * told to cache or batch what a peer answering in 0.1 ms sent. The tell is in the waits'
 * spread: a peer's own work varies, a timer does not, so every wait over JFR's 5 ms threshold
 * sits at the timer and none is shorter.
 */
final class DelayedAck {
    /** Linux's minimum delayed-ACK timeout (TCP_DELACK_MIN), which loopback and LAN peers run at. */
    static final double TIMER_MS = 40;
    /** Enough waits for their floor to mean something. */
    static final int MIN_EVENTS = 20;

    private DelayedAck() {}

    /** Whether row {@code i} of request-waits or task-waits is a socket's waits pinned at the timer. */
    static boolean matches(Table t, int i) {
        if (!"socket".equals(t.text(i, "kind")) || t.number(i, "events") < MIN_EVENTS) return false;
        double mean = t.number(i, "waitMs") / t.number(i, "events");
        // Never shorter than the timer (a little slack for the clock), and on average not much past it.
        return t.number(i, "minMs") >= TIMER_MS * 0.9 && mean <= TIMER_MS * 1.25;
    }

    static final String CLAUSE = "; no wait was shorter than %s and they average %s: the %s delayed-ACK timer of"
            + " Linux's TCP, the stall of a message sent in two small writes while Nagle's algorithm is on";

    static final String EXPLANATION = "Nagle's algorithm holds a small write back while an earlier one is unacknowledged."
            + " When a message goes out in two writes (a header, then a body) before its sender reads the answer, the peer"
            + " holds the first part, has nothing to answer yet, and delays its acknowledgement until its timer fires:"
            + " every exchange then costs the timer, however fast the peer is.";

    static final String FIX = "Send each message in one write: build it in a buffer (a BufferedOutputStream flushed once"
            + " per message) or turn Nagle's algorithm off on the socket (Socket.setTcpNoDelay(true), the client's TCP_NODELAY"
            + " option). Whichever side writes in pieces needs it: the caller's request, or the peer's reply.";
}
