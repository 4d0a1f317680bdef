import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The bench's target: answers every request at once with a fixed 13-byte body, on 127.0.0.1:PORT.
 * Run as a single-file program: java -cp NETTY_JARS bench/load/Target.java PORT [THREADS].
 * It is deliberately trivial so that both load generators, not the target, are what is measured.
 */
public class Target {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        ByteBuf body = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes("hello, bench\n".getBytes(StandardCharsets.US_ASCII)));
        var group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new Responder(body));
                    }
                }).bind(new InetSocketAddress("127.0.0.1", port)).sync();
        System.out.println("target listening on 127.0.0.1:" + port);
    }

    @ChannelHandler.Sharable
    static final class Responder extends SimpleChannelInboundHandler<HttpObject> {
        private final ByteBuf body;

        Responder(ByteBuf body) {
            this.body = body;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof LastHttpContent) {
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body.duplicate());
                r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
                r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
                ctx.write(r);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            // One flush per read batch, as servers tuned for pipelining-free keep-alive do.
            ctx.flush();
        }
    }
}
