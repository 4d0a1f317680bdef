package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import io.culprit.model.Table;
import java.util.List;

/**
 * A request that waits in {@code Object.wait} for a reply its client's own I/O thread reads off a
 * socket: a remote call, made through a client whose I/O culprit does not time. RabbitMQ's
 * publisher confirms work this way ({@code ChannelN.waitForConfirms} waits until the connection's
 * reader thread hands it the broker's ack), as does any client that writes on the caller's thread
 * and reads replies on one of its own. JFR records the wait with its notifier, and the
 * {@code locks} table (kind {@code wait}) gives the notifier's stack: a socket read, or a selector,
 * in the same library as the code that waits. A client whose caller parks for the reply instead
 * (gRPC's blocking stubs) has no notifier in JFR; the collector knows its blocker and names such
 * rows kind {@code reply}. Neither is contention on a lock, so lock-contention leaves them to
 * request-waits.
 *
 * <p>A service outside the lab whose requests waited 4 ms for a confirm per published message
 * (89 % of their time) read as "a hand-made pool whose resources are all taken" before.
 */
final class ReplyWait {
    /** JDK frames of a thread blocked reading a socket, plain, TLS or NIO, or waiting in a selector for one to be readable. */
    private static final String[] READS = {
        "java.net.Socket$SocketInputStream.read", "java.net.SocketInputStream.", "sun.nio.ch.NioSocketImpl.",
        "sun.nio.ch.SocketChannelImpl.read", "sun.nio.ch.SocketDispatcher.read", "sun.security.ssl.SSLSocketImpl$AppInputStream.read",
        "sun.nio.ch.EPoll.wait", "sun.nio.ch.KQueue.poll", "sun.nio.ch.WEPoll.wait", "sun.nio.ch.SelectorImpl.select"
    };

    /** Servers' own I/O threads: a request waiting on one waits for its own client, which is not a dependency. */
    private static final String[] SERVERS = {
        "org.apache.tomcat.", "org.apache.coyote.", "org.eclipse.jetty.", "io.undertow.", "org.xnio.", "reactor.netty.http.server."
    };

    private ReplyWait() { }

    /**
     * Whether row {@code i} of a locks table is a reply wait: kind {@code reply}, or an
     * {@code Object.wait} whose notifier sat in a socket read or a selector, called by the same
     * library as the code that waited.
     */
    static boolean isReply(Table t, int i) {
        String kind = Evidence.text(t, i, "kind");
        String client = client(t, i);
        // Parks on a client's reply blocker, classified by the collector (gRPC's blocking stubs).
        if (kind.equals("reply")) return client != null;
        if (!kind.equals("wait") || client == null) return false;
        String reader = reader(t, i);
        if (reader == null || Frames.startsWithAny(reader, SERVERS) || !Frames.library(client).equals(Frames.library(reader))) return false;
        // The notifier's JDK frames, above its first own one: a socket read or a selector.
        for (String f : Evidence.stack(t, i, "ownerStack")) {
            if (f.equals(reader)) return false;
            if (Frames.startsWithAny(f, READS)) return true;
        }
        return false;
    }

    /**
     * The client's frame the application called: the outermost of the waiter's frames in the
     * library that waits (the first two package names of its first frame outside the JDK).
     */
    static String client(Table t, int i) {
        List<String> waiter = Evidence.stack(t, i, "waiterStack");
        String first = Frames.firstNonJdk(waiter);
        if (first == null || Frames.isJdk(first)) return null;
        String lib = Frames.library(first), outer = first;
        for (String f : waiter.subList(waiter.indexOf(first), waiter.size())) {
            if (!Frames.library(f).equals(lib)) break;
            outer = f;
        }
        return outer;
    }

    /** The application's frame that called the client: the first frame below it outside the client's library. */
    static String caller(Table t, int i) {
        String client = client(t, i);
        if (client == null) return null;
        String lib = Frames.library(client);
        for (String f : Evidence.stack(t, i, "waiterStack")) {
            if (!Frames.isJdk(f) && !Frames.library(f).equals(lib) && Frames.isApplication(f)) return f;
        }
        return null;
    }

    /** The client's frame in the notifier's stack: the code that read the reply. */
    static String reader(Table t, int i) {
        for (String f : Evidence.stack(t, i, "ownerStack")) if (!Frames.isJdk(f)) return f;
        return null;
    }

    /** The reply wait with the most blocked time in the table, or -1. */
    static int top(Table t) {
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (isReply(t, i) && (top < 0 || t.number(i, "blockedMs") > t.number(top, "blockedMs"))) top = i;
        }
        return top;
    }
}
