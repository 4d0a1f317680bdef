package io.culprit.agent.probe;

import java.util.List;

/**
 * Jetty's requests at {@code Server.handle}, the one method every request passes through on its
 * way to the handlers (context, filters, servlet) on the thread that serves it. Jetty 9.4 to 11
 * call {@code handle(HttpChannel)} from {@code HttpChannel.handle()}; Jetty 12 calls
 * {@code handle(Request, Response, Callback)} from its channel's handler invocation (every
 * environment, ee8 to ee11, nests inside it). A servlet runs inside the call; a Jetty 12 core
 * handler that completes its callback later is timed up to its return, as Tomcat's asynchronous
 * requests are up to theirs. The server's thread pool is handed to the pool probe the first time
 * a server is seen, as Tomcat's executor is from the first adapter seen.
 */
final class JettyHooks {

    static final String SERVER = "org.eclipse.jetty.server.Server";
    private static final String JETTY_12 = "(Lorg/eclipse/jetty/server/Request;Lorg/eclipse/jetty/server/Response;";
    private static final String JETTY_9_TO_11 = "(Lorg/eclipse/jetty/server/HttpChannel;)";

    private final RequestProbe requests;
    private final Getter status = new Getter("getStatus");
    private final Getter response = new Getter("getResponse");

    JettyHooks(RequestProbe requests) {
        this.requests = requests;
    }

    List<Hook> hooks() {
        return List.of(
                new ContainerHook(requests, SERVER, "handle", JETTY_12, Hook.SELF | Hook.ARG1) {
                    @Override
                    double status(Object self, Object arg0, Object arg1) {
                        return status.number(arg1);
                    }

                    @Override
                    Object poolOf(Object server) {
                        return Reflect.call(server, "getThreadPool");
                    }
                },
                new ContainerHook(requests, SERVER, "handle", JETTY_9_TO_11, Hook.SELF | Hook.ARG0) {
                    @Override
                    double status(Object self, Object arg0, Object arg1) {
                        return status.number(response.call(arg0));
                    }

                    @Override
                    Object poolOf(Object server) {
                        return Reflect.call(server, "getThreadPool");
                    }
                });
    }
}
