package io.culprit.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventLoopsTest {

    @Test
    void loopThreadsAreKnownByTheNamesTheirFactoriesGive() {
        assertThat(EventLoops.isEventLoopThread("reactor-http-nio-3")).isTrue();
        assertThat(EventLoops.isEventLoopThread("nioEventLoopGroup-2-1")).isTrue();
        assertThat(EventLoops.isEventLoopThread("vert.x-eventloop-thread-0")).isTrue();
        // Micronaut's server and its HTTP clients' groups
        assertThat(EventLoops.isEventLoopThread("default-eventLoopGroup-5-1")).isTrue();
        assertThat(EventLoops.isEventLoopThread("partner-nioEventLoopGroup-7-2")).isTrue();
        // Ktor's Netty engine: its handlers' coroutines run on its call group's threads
        assertThat(EventLoops.isEventLoopThread("eventLoopGroupProxy-4-1")).isTrue();
        assertThat(EventLoops.isEventLoopThread("DefaultDispatcher-worker-3")).isFalse();
        assertThat(EventLoops.isEventLoopThread("io-executor-thread-1")).isFalse();
        assertThat(EventLoops.isEventLoopThread("http-nio-8080-exec-1")).isFalse();
    }
}
