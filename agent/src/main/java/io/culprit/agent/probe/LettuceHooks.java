package io.culprit.agent.probe;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Redis commands through Lettuce (5 and 6): the sync and async APIs hand every command, as an
 * {@code AsyncCommand} (a CompletableFuture), to {@code RedisChannelHandler.dispatch(RedisCommand)}
 * (the standalone connection's override ends in it too), which writes it to the channel and
 * returns; the reply completes the future on the event loop. So a command is timed from its
 * dispatch to its completion by a callback on that future, as the JDK's HttpClient is
 * ({@link JdkHttpHooks}): a small allocation per command, far less than the round trip. The
 * target is the command's type (GET, HSET). Reactive commands are not futures and are not
 * timed; nor are commands dispatched as a batch.
 */
final class LettuceHooks {

    static final String CHANNEL_HANDLER = "io.lettuce.core.RedisChannelHandler";

    private LettuceHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(new Hook(CHANNEL_HANDLER, "dispatch", "(Lio/lettuce/core/protocol/RedisCommand;)", Hook.TIMED | Hook.ARG0) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                // Asked here, on the caller's thread: the reply completes on Lettuce's event loop, where
                // the stack holds no application frame for the target's call site.
                boolean held = calls.holdsConnection();
                Object type = Reflect.call(arg0, "getType");
                String name = type == null ? "(command)" : type.toString();
                CallStats stats = calls.stats("redis", name);
                if (thrown != null) {
                    calls.record(System.nanoTime(), stats, name, start, thrown, held);
                } else if (arg0 instanceof CompletableFuture) {
                    ((CompletableFuture<?>) arg0).whenComplete((reply, failure) ->
                            calls.record(System.nanoTime(), stats, name, start, failure, held));
                }
            }
        });
    }
}
