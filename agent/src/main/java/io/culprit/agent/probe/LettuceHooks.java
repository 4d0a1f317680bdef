package io.culprit.agent.probe;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * Redis commands through Lettuce (5 and 6): the sync and async APIs hand every command, as an
 * {@code AsyncCommand} (a CompletableFuture), to {@code RedisChannelHandler.dispatch(RedisCommand)}
 * (the standalone connection's override ends in it too), which writes it to the channel and
 * returns; the reply completes the future on the event loop. So a command is timed from its
 * dispatch to its completion by a callback on that future, as the JDK's HttpClient is
 * ({@link JdkHttpHooks}): a small allocation per command, far less than the round trip. The
 * target is the command's type (GET, HSET). A reactive command ({@code RedisPublisher}'s
 * {@code SubscriptionCommand}, dispatched when its publisher is subscribed) is no future: it is
 * timed through the callback that Lettuce's {@code CompleteableCommand.onComplete(BiConsumer)}
 * registers, which its completion, failure and cancellation all run. Commands dispatched as a
 * batch are not timed.
 */
final class LettuceHooks {

    static final String CHANNEL_HANDLER = "io.lettuce.core.RedisChannelHandler";

    private LettuceHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(new Hook(CHANNEL_HANDLER, "dispatch", "(Lio/lettuce/core/protocol/RedisCommand;)", Hook.TIMED | Hook.ARG0) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                long start = System.nanoTime();
                // A reactive command's callback goes on before it is written: its reply may complete it on the
                // event loop before dispatch returns, and a callback added to a completed command never runs.
                if (arg0 != null && !(arg0 instanceof CompletableFuture)) {
                    boolean held = calls.holdsConnection();
                    String name = name(arg0);
                    CallStats stats = calls.stats("redis", name);
                    if (stats.reactiveClient == null) stats.reactiveClient = "lettuce";
                    onComplete(arg0, (reply, failure) -> calls.record(System.nanoTime(), stats, name, start, failure, held));
                }
                return start;
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (!(arg0 instanceof CompletableFuture)) return;  // timed by its callback, failure included
                // Asked here, on the caller's thread: the reply completes on Lettuce's event loop, where
                // the stack holds no application frame for the target's call site.
                boolean held = calls.holdsConnection();
                String name = name(arg0);
                CallStats stats = calls.stats("redis", name);
                if (thrown != null) {
                    calls.record(System.nanoTime(), stats, name, start, thrown, held);
                } else {
                    ((CompletableFuture<?>) arg0).whenComplete((reply, failure) ->
                            calls.record(System.nanoTime(), stats, name, start, failure, held));
                }
            }
        });
    }

    private static String name(Object command) {
        Object type = Reflect.call(command, "getType");
        return type == null ? "(command)" : type.toString();
    }

    /** Command class → its public {@code onComplete(BiConsumer)}, or {@link Reflect#MISSING}. Not a ClassValue: see {@link Reflect}. */
    private static final ConcurrentHashMap<Class<?>, Method> ON_COMPLETE = new ConcurrentHashMap<>();

    /** Registers {@code callback} on a reactive command's completion; false when the command cannot take one. */
    private static boolean onComplete(Object command, BiConsumer<Object, Throwable> callback) {
        if (command == null) return false;
        Method m = ON_COMPLETE.get(command.getClass());
        if (m == null) m = ON_COMPLETE.computeIfAbsent(command.getClass(), LettuceHooks::findOnComplete);
        if (m == Reflect.MISSING) return false;
        try {
            m.invoke(command, callback);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private static Method findOnComplete(Class<?> c) {
        try {
            Method m = c.getMethod("onComplete", BiConsumer.class);
            m.setAccessible(true);  // a public method of a non-public class (RedisPublisher$SubscriptionCommand)
            return m;
        } catch (NoSuchMethodException | RuntimeException e) {
            return Reflect.MISSING;
        }
    }
}
