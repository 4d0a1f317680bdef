package io.culprit.load.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * One keep-alive HTTP/1.1 connection with at most one request in flight. It lives on its worker's
 * event loop, so its fields need no synchronisation. The response body is discarded as it streams
 * in (no aggregation): the generator measures time to the last byte, not content.
 */
final class Connection extends ChannelInboundHandlerAdapter {

    final Worker worker;
    Channel channel;
    boolean inFlight;
    long intendedNanos;
    long sentNanos;
    boolean measured;
    /** Index of the plan's request now in flight, for the per-request breakdown. */
    int requestIndex;
    private boolean head;
    private int status;
    private boolean keepAlive;
    /** The response's body bytes so far (decoded chunks, no headers). */
    private long bodyBytes;

    Connection(Worker worker) {
        this.worker = worker;
    }

    /** Netty's response decoder, told when the request was a HEAD so it expects no body. */
    HttpResponseDecoder decoder() {
        // Header validation costs CPU on every response and guards nothing here: headers are discarded.
        return new HttpResponseDecoder(new HttpDecoderConfig().setValidateHeaders(false)) {
            @Override
            protected boolean isContentAlwaysEmpty(HttpMessage msg) {
                return head || super.isContentAlwaysEmpty(msg);
            }
        };
    }

    void send(EncodedRequests requests, long intended, boolean measured) {
        int i = requests.pick();
        this.requestIndex = i;
        this.head = requests.isHead(i);
        this.intendedNanos = intended;
        this.measured = measured;
        this.inFlight = true;
        this.status = 0;
        this.bodyBytes = 0;
        this.sentNanos = System.nanoTime();
        channel.writeAndFlush(requests.bytes(i), channel.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpResponse r) {
                if (r.decoderResult().isFailure()) {
                    fail(Metrics.Failure.IO);
                    return;
                }
                status = r.status().code();
                keepAlive = HttpUtil.isKeepAlive(r);
            }
            if (msg instanceof HttpContent content) bodyBytes += content.content().readableBytes();
            if (msg instanceof LastHttpContent && inFlight) {
                long now = System.nanoTime();
                inFlight = false;
                worker.completed(this, status, now, keepAlive, bodyBytes);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (inFlight) {
            inFlight = false;
            worker.failed(this, Metrics.Failure.IO);
        }
        worker.closed(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and decoder errors end this connection; channelInactive then accounts for it once.
        ctx.close();
    }

    /** Ends the request in flight as a failure of {@code kind} and drops the connection. */
    void fail(Metrics.Failure kind) {
        if (inFlight) {
            inFlight = false;
            worker.failed(this, kind);
        }
        channel.close();
    }
}
