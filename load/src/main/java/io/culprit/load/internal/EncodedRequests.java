package io.culprit.load.internal;

import io.culprit.load.RequestSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The plan's requests, encoded once by Netty's {@link HttpRequestEncoder} into read-only buffers.
 * Sending is then a duplicate and a write: no per-request encoding, which is most of what keeps the
 * generator's own CPU cost near wrk's.
 */
public final class EncodedRequests {

    private final ByteBuf[] bufs;
    private final boolean[] head;
    private final double[] cumulative;

    public EncodedRequests(List<RequestSpec> specs) {
        bufs = new ByteBuf[specs.size()];
        head = new boolean[specs.size()];
        cumulative = new double[specs.size()];
        double sum = 0;
        for (int i = 0; i < specs.size(); i++) {
            RequestSpec s = specs.get(i);
            try {
                bufs[i] = Unpooled.unreleasableBuffer(encode(s).asReadOnly());
            } catch (IllegalArgumentException e) {
                throw new io.culprit.load.LoadException("bad request " + s + ": " + e.getMessage());
            }
            head[i] = s.method().equals("HEAD");
            sum += s.weight();
            cumulative[i] = sum;
        }
    }

    /** Picks a request index at random in proportion to the weights. */
    public int pick() {
        if (bufs.length == 1) {
            return 0;
        }
        double x = ThreadLocalRandom.current().nextDouble() * cumulative[cumulative.length - 1];
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] > x) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** A fresh view of request {@code i}'s bytes, safe to hand to any channel. */
    public ByteBuf bytes(int i) {
        return bufs[i].duplicate();
    }

    public boolean isHead(int i) {
        return head[i];
    }

    private static ByteBuf encode(RequestSpec s) {
        byte[] body = s.body();
        DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
                HttpMethod.valueOf(s.method()), s.target(), Unpooled.wrappedBuffer(body));
        String host = s.uri().getPort() < 0 ? s.uri().getHost() : s.uri().getHost() + ":" + s.port();
        req.headers().set(HttpHeaderNames.HOST, host);
        req.headers().set(HttpHeaderNames.USER_AGENT, "culprit-load");
        req.headers().set(HttpHeaderNames.ACCEPT, "*/*");
        for (Map.Entry<String, String> h : s.headers().entrySet()) {
            req.headers().set(h.getKey(), h.getValue());
        }
        if (body.length > 0 || s.method().equals("POST") || s.method().equals("PUT") || s.method().equals("PATCH")) {
            req.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        }
        if (!req.headers().contains(HttpHeaderNames.CONNECTION)) {
            req.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestEncoder());
        ch.writeOutbound(req);
        ByteBuf out = Unpooled.directBuffer();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            ByteBuf b = (ByteBuf) o;
            out.writeBytes(b);
            b.release();
        }
        ch.finishAndReleaseAll();
        return out;
    }
}
