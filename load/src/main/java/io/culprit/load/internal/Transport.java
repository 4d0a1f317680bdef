package io.culprit.load.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * Native epoll on Linux, NIO elsewhere. Epoll costs noticeably less CPU per request (no selected-key
 * sets, no JDK selector wake-ups), and the generator's own CPU is what competes with the target on
 * a small machine.
 */
final class Transport {

    private static final boolean EPOLL = !Boolean.getBoolean("culprit.load.nio") && Epoll.isAvailable();

    private Transport() {
    }

    static EventLoopGroup group(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    static Class<? extends SocketChannel> channel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static String name() {
        return EPOLL ? "epoll" : "nio";
    }
}
