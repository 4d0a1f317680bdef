package io.culprit.load;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP server with a known service time: each response is scheduled {@code serviceMillis} after
 * its request arrives (no thread is blocked, so capacity is unlimited). {@link #stall} freezes it:
 * every response due during the stall goes out when the stall ends, like a stop-the-world pause.
 * Paths starting with /fail answer 500; paths starting with /close answer with Connection: close
 * and close the connection, as a server that refuses keep-alive.
 */
final class TestServer implements AutoCloseable {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final long serviceNanos;
    private volatile long stallUntil;
    final AtomicLong requests = new AtomicLong();
    /** "METHOD uri x-a-header body" of every request, counted: proves what went over the wire. */
    final java.util.concurrent.ConcurrentHashMap<String, Long> seen = new java.util.concurrent.ConcurrentHashMap<>();

    TestServer(long serviceMillis) {
        this.serviceNanos = TimeUnit.MILLISECONDS.toNanos(serviceMillis);
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Handler());
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** From now on, nothing is answered for {@code d}; what was due meanwhile goes out at its end. */
    void stall(Duration d) {
        stallUntil = System.nanoTime() + d.toNanos();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            requests.incrementAndGet();
            seen.merge(req.method() + " " + req.uri() + " " + req.headers().get("X-A") + " "
                    + req.content().toString(StandardCharsets.UTF_8), 1L, Long::sum);
            boolean fail = req.uri().startsWith("/fail");
            boolean close = req.uri().startsWith("/close");
            long now = System.nanoTime();
            long due = Math.max(now + serviceNanos, stallUntil);
            ctx.executor().schedule(() -> {
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                        fail ? HttpResponseStatus.INTERNAL_SERVER_ERROR : HttpResponseStatus.OK,
                        Unpooled.copiedBuffer("ok\n", StandardCharsets.US_ASCII));
                r.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
                if (close) {
                    r.headers().set(HttpHeaderNames.CONNECTION, "close");
                    ctx.writeAndFlush(r).addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                } else {
                    ctx.writeAndFlush(r);
                }
            }, due - now, TimeUnit.NANOSECONDS);
        }
    }
}
