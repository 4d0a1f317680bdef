package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.micronaut.core.convert.ConversionService;
import io.micronaut.http.body.CloseableByteBody;
import io.micronaut.http.netty.body.AvailableNettyByteBody;
import io.micronaut.http.server.HttpServerConfiguration;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.micronaut.http.server.netty.handler.OutboundAccess;
import io.micronaut.http.server.netty.handler.PipeliningServerHandler;
import io.micronaut.http.server.netty.handler.RequestHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests of Micronaut 4's Netty server, through its real pipelining handler (the HTTP/1
 * connection's handler every Micronaut server installs) in an EmbeddedChannel, with the request
 * objects Micronaut's router makes: each request is timed from its NettyHttpRequest to the
 * response handed to the connection, by path with numeric segments folded; a 500 is an error,
 * and so is a request released with no response (the connection closed under it).
 */
class MicronautProbeTest {

    private static final long WORK_MS = 40;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    /** What RoutingInBoundHandler does with a request: wraps it, attaches it, answers (here at once, after the handler's work). */
    private static final class Handler implements RequestHandler {
        @Override
        public void accept(ChannelHandlerContext ctx, HttpRequest request, CloseableByteBody body, OutboundAccess out) {
            NettyHttpRequest<?> r = new NettyHttpRequest<>(request, body, ctx, ConversionService.SHARED, new HttpServerConfiguration());
            out.attachment(r);
            String path = r.getPath();
            if (path.equals("/gone")) {
                r.release();  // the connection closed before an answer
                return;
            }
            busy(WORK_MS);
            HttpResponseStatus status = path.startsWith("/fail") ? HttpResponseStatus.INTERNAL_SERVER_ERROR : HttpResponseStatus.OK;
            DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
            out.write(response, AvailableNettyByteBody.empty());
        }

        @Override
        public void handleUnboundError(Throwable cause) {
        }

        @Override
        public void responseWritten(Object attachment) {
            if (attachment instanceof NettyHttpRequest) ((NettyHttpRequest<?>) attachment).release();
        }
    }

    @Test
    void requestsAreTimedFromTheRequestObjectToTheResponseHandedToTheConnection() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel(new PipeliningServerHandler(new Handler()));
        get(channel, "/items/1");  // loads the classes the probes weave
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(MicronautHooks.REQUEST + ".<init>"));
        assertThat(p.woven).anyMatch(w -> w.startsWith(MicronautHooks.HTTP1_OUTBOUND + ".write"));
        for (int i = 0; i < 8; i++) get(channel, "/items/" + (100 + i));
        for (int i = 0; i < 3; i++) get(channel, "/fail");
        get(channel, "/gone");

        assertThat(CallRows.until(() -> p.requests.count() >= 12)).as("12 requests counted, not " + p.requests.count()).isTrue();
        Map<String, Object> items = CallRows.route(p, "GET /items/{n}");
        assertThat(items).containsEntry("count", 8L);
        assertThat((Double) items.get("p50Ms")).isGreaterThanOrEqualTo(WORK_MS * 0.95);
        assertThat(CallRows.route(p, "GET /fail")).containsEntry("count", 3L);
        assertThat(CallRows.route(p, "GET /gone")).containsEntry("count", 1L);
        assertThat(CallRows.until(() -> CallRows.requestErrors(p) == 4.0)).as("3 answered 500, 1 released unanswered, not " + CallRows.requestErrors(p)).isTrue();
        channel.finishAndReleaseAll();
    }


    private static void get(EmbeddedChannel channel, String path) {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path));
        channel.runPendingTasks();
        Object out;
        while ((out = channel.readOutbound()) != null) ReferenceCountUtil.release(out);
    }

    private static void busy(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }
}
