package io.culprit.agent.probe;

import java.util.List;

/**
 * Redis commands through Jedis (4 to 6): every command of {@code Jedis}, {@code JedisPooled} and
 * {@code UnifiedJedis} ends in {@code Connection.executeCommand(CommandObject)}, and raw
 * {@code sendCommand(...)} calls in {@code executeCommand(CommandArguments)}; each sends the
 * command and reads its reply, so its duration is the round trip. The target is the command's
 * name (GET, HSET): keys vary per call and would make one row each. Pipelined and
 * transactional commands do not go through these methods and are not timed.
 */
final class RedisHooks {

    static final String JEDIS_CONNECTION = "redis.clients.jedis.Connection";

    private RedisHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(
                new Hook(JEDIS_CONNECTION, "executeCommand", "(Lredis/clients/jedis/CommandObject;)", Hook.TIMED | Hook.ARG0) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        long end = System.nanoTime();
                        record(calls, Reflect.call(arg0, "getArguments"), start, end, thrown);
                    }
                },
                new Hook(JEDIS_CONNECTION, "executeCommand", "(Lredis/clients/jedis/CommandArguments;)", Hook.TIMED | Hook.ARG0) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        record(calls, arg0, start, System.nanoTime(), thrown);
                    }
                });
    }

    /** {@code arguments} is a Jedis CommandArguments; its command is an enum (Protocol.Command) or a custom ProtocolCommand. */
    private static void record(CallProbe calls, Object arguments, long start, long end, Throwable thrown) {
        Object command = Reflect.call(arguments, "getCommand");
        String name = command == null ? "(command)" : command.toString();
        calls.record(end, "redis", name, name, start, thrown);
    }
}
