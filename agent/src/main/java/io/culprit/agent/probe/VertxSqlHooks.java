package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SQL through the Vert.x SQL client (its PostgreSQL, MySQL, SQL Server, DB2 and Oracle drivers,
 * Quarkus' reactive datasources), which JDBC's hooks never see: a query is a command object the
 * client hands to its connection ({@code SocketConnectionBase.schedule}, on the caller's thread:
 * the pool has already lent the connection, so its wait is not the query's), and the connection's
 * event loop completes it when the server's answer has been decoded ({@code CommandResponse.fire},
 * or {@code CommandBase.complete} when the connection fails it). The query is timed between the
 * two, its start carried in a {@link PendingCalls} table keyed by the command. Only query commands
 * are timed ({@code SimpleQueryCommand}, {@code ExtendedQueryCommand}); the driver's own prepares,
 * closes and transaction commands are not. A command queued behind others on a pipelined
 * connection counts its wait in its time, as the server's queue would. Vert.x 4 keeps the
 * commands under {@code impl.command} and schedules with its context first; Vert.x 5 moved them to
 * {@code internal.command} and takes the command first.
 */
final class VertxSqlHooks {

    static final String CONNECTION = "io.vertx.sqlclient.impl.SocketConnectionBase";
    private static final String[] COMMAND_PACKAGES = {"io.vertx.sqlclient.internal.command.", "io.vertx.sqlclient.impl.command."};

    private final CallProbe calls;
    private final PendingCalls pending = new PendingCalls();
    private final Getter sql = new Getter("sql");
    private final Getter cause = new Getter("cause");
    /** Command classes seen: whether each is a query. */
    private final ConcurrentHashMap<Class<?>, Boolean> queries = new ConcurrentHashMap<>();
    /** Connection classes seen: the database each drives. */
    private final ConcurrentHashMap<Class<?>, String> databases = new ConcurrentHashMap<>();

    VertxSqlHooks(CallProbe calls) {
        this.calls = calls;
    }

    List<Hook> hooks() {
        List<Hook> hooks = new ArrayList<>();
        // Vert.x 5: schedule(CommandBase, Completable), read at entry.
        hooks.add(new Hook(CONNECTION, "schedule", "(Lio/vertx/sqlclient/internal/command/CommandBase;", Hook.ENTER | Hook.SELF | Hook.ARG0) {
            @Override
            public long probeEnter(int id, Object self, Object command) {
                start(self, command, System.nanoTime());
                return 0L;
            }
        });
        // Vert.x 4: schedule(ContextInternal, CommandBase); an entry sees one argument, so its exit
        // notes the start it took (the command is only queued or written by then, never answered:
        // the answer is decoded on the connection's event loop, after this call returns there).
        hooks.add(new Hook(CONNECTION, "schedule", "(Lio/vertx/core/impl/ContextInternal;Lio/vertx/sqlclient/impl/command/CommandBase;)",
                Hook.TIMED | Hook.SELF | Hook.ARG1) {
            @Override
            public void probeExit(int id, long startNs, Object self, Object arg0, Object command, Object returned, Throwable thrown) {
                if (thrown == null) start(self, command, startNs);
            }
        });
        for (String pkg : COMMAND_PACKAGES) {
            hooks.add(new Hook(pkg + "CommandResponse", "fire", "()", Hook.ENTER | Hook.SELF) {
                @Override
                public long probeEnter(int id, Object self, Object arg0) {
                    long now = System.nanoTime();
                    Object failure = cause.call(Reflect.cachedField(self, "res"));
                    calls.endPending(pending, Reflect.cachedField(self, "cmd"), now, failure instanceof Throwable ? (Throwable) failure : null);
                    return 0L;
                }
            });
            // A command the connection fails (closed, corrupt) is completed here, with no response.
            hooks.add(new Hook(pkg + "CommandBase", "complete", "(Lio/vertx/core/AsyncResult;)", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                @Override
                public long probeEnter(int id, Object self, Object result) {
                    long now = System.nanoTime();
                    Object failure = cause.call(result);
                    calls.endPending(pending, self, now, failure instanceof Throwable ? (Throwable) failure : null);
                    return 0L;
                }
            });
        }
        return hooks;
    }

    private void start(Object connection, Object command, long startNs) {
        if (command == null || !isQuery(command.getClass())) return;
        Object text = sql.call(command);
        if (!(text instanceof String)) return;
        // Here, on the caller's thread, so the first query's stats get its call site, not the event loop's.
        CallStats stats = calls.stats("sql", SqlText.normalizeCached((String) text));
        if (stats.database == null) stats.database = database(connection.getClass());
        if (stats.reactiveClient == null) stats.reactiveClient = "vertx-sql-client";
        pending.put(command, startNs, stats);
    }

    private boolean isQuery(Class<?> c) {
        Boolean q = queries.get(c);
        if (q == null) {
            String n = c.getName();
            q = (n.startsWith(COMMAND_PACKAGES[0]) || n.startsWith(COMMAND_PACKAGES[1])) && n.endsWith("QueryCommand");
            queries.putIfAbsent(c, q);
        }
        return q;
    }

    /** The database a driver's connection class talks to, from the driver's own name for it. */
    private String database(Class<?> c) {
        String d = databases.get(c);
        if (d != null) return d;
        String n = c.getName();
        d = n.startsWith("io.vertx.pgclient.") ? "PostgreSQL" : n.startsWith("io.vertx.mysqlclient.") ? "MySQL"
                : n.startsWith("io.vertx.mssqlclient.") ? "SQL Server" : n.startsWith("io.vertx.db2client.") ? "DB2"
                : n.startsWith("io.vertx.oracleclient.") ? "Oracle" : "SQL";
        databases.putIfAbsent(c, d);
        return d;
    }
}
