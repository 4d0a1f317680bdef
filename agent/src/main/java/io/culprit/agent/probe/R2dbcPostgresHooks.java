package io.culprit.agent.probe;

import java.util.List;

/**
 * SQL through R2DBC's PostgreSQL driver (r2dbc-postgresql 0.9 to 1.1), which JDBC's hooks never
 * see: a statement's {@code execute()} only assembles a Flux, and the query runs when that Flux is
 * subscribed, later and often on another thread. Every query, simple or extended, becomes one
 * {@code ReactorNettyClient.Conversation}: made when the exchange is subscribed (the request is
 * sent right after, on the same thread), and ended by the message the server ends it with
 * ({@code ReadyForQuery}) or failed with the connection. That message reaches the conversation
 * ({@code complete(BackendMessage)}) only when its subscriber has asked for everything before it:
 * a pipeline that makes a query per row ({@code concatMap}) keeps the outer query's conversation
 * open until the last inner query is done, and that time is not the database's. So the end is
 * the arrival of the first {@code ReadyForQuery} while the conversation heads its connection's
 * queue ({@code BackendMessageSubscriber.onNext}, on the event loop, before any buffering), and
 * the call is recorded at {@code complete} or {@code onError}; its start, stats and end are
 * carried in a {@link PendingCalls} table keyed by the conversation. A conversation cancelled by
 * its subscriber (a timeout, a {@code take(1)}) is not recorded.
 *
 * <p>The text: an extended (parameterized) query's conversation ends on the driver's
 * {@code ExtendedFlowOperator}, which holds the SQL; a simple one's is the argument of
 * {@code SimpleQueryMessageFlow.exchange(Client, String)}, noted on the thread that assembles it
 * and taken by the next conversation made there. A query the server answers with an
 * {@code ErrorResponse} (then {@code ReadyForQuery}, which completes the conversation) counts as
 * failed. The answer's arrival still waits for the subscriber when the client stops reading its
 * socket (its buffer of 256 messages full): then, as in a cursored fetch, the query's time
 * includes its reader's. A cursored fetch in compatibility mode (a fetch size inside a
 * transaction) ends its conversation on a lambda, not the operator, and is not timed.
 */
final class R2dbcPostgresHooks {

    static final String CONVERSATION = "io.r2dbc.postgresql.client.ReactorNettyClient$Conversation";
    static final String SIMPLE_QUERY = "io.r2dbc.postgresql.client.SimpleQueryMessageFlow";
    static final String MESSAGE_SUBSCRIBER = "io.r2dbc.postgresql.client.ReactorNettyClient$BackendMessageSubscriber";
    private static final String READY_FOR_QUERY = "io.r2dbc.postgresql.message.backend.ReadyForQuery";
    private static final String ERROR_RESPONSE = "io.r2dbc.postgresql.message.backend.ErrorResponse";
    private static final String BACKEND_MESSAGE = "Lio/r2dbc/postgresql/message/backend/BackendMessage;";

    private R2dbcPostgresHooks() { }

    /** What a conversation's end needs beside its start (which the pending table keeps). */
    private static final class Started {
        final CallStats stats;
        /** When the server's ReadyForQuery arrived for it; 0 until then. */
        volatile long serverDone;
        /** Whether the server answered it with an ErrorResponse. */
        volatile boolean failed;

        Started(CallStats stats) {
            this.stats = stats;
        }
    }

    static List<Hook> hooks(CallProbe calls) {
        PendingCalls pending = new PendingCalls();
        PerThread simpleSql = new PerThread(() -> new Object[1]);
        // The driver's message classes, once a message of each was seen: {ReadyForQuery, ErrorResponse}.
        Class<?>[] ends = new Class<?>[2];
        return List.of(
                new Hook(SIMPLE_QUERY, "exchange", "(Lio/r2dbc/postgresql/client/Client;Ljava/lang/String;)", Hook.EXIT | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        ((Object[]) simpleSql.get())[0] = arg1;
                    }
                },
                new Hook(CONVERSATION, "<init>", "(Ljava/util/function/Predicate;Lreactor/core/publisher/FluxSink;)",
                        Hook.EXIT | Hook.SELF | Hook.ARG0) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object takeUntil, Object arg1, Object returned, Throwable thrown) {
                        long now = System.nanoTime();
                        Object[] noted = (Object[]) simpleSql.get();
                        Object sql = Reflect.cachedField(takeUntil, "sql");  // the extended flow's operator
                        if (!(sql instanceof String)) sql = noted[0];
                        noted[0] = null;
                        if (!(sql instanceof String)) return;  // a conversation of the driver's own (startup, cancel)
                        // Here, on the subscribing thread, so the first query's stats get its call site, not the event loop's.
                        CallStats stats = calls.stats("sql", SqlText.normalizeCached((String) sql));
                        if (stats.database == null) stats.database = "PostgreSQL";
                        if (stats.reactiveClient == null) stats.reactiveClient = "r2dbc-postgresql";
                        pending.put(self, now, new Started(stats));
                    }
                },
                new Hook(MESSAGE_SUBSCRIBER, "onNext", "(" + BACKEND_MESSAGE + ")", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object message) {
                        if (message == null) return 0L;
                        int kind = kind(message.getClass(), ends);  // a row, most of the time: two compares
                        if (kind < 0) return 0L;
                        Object queue = Reflect.cachedField(self, "conversations");
                        Object head = queue instanceof java.util.Queue ? ((java.util.Queue<?>) queue).peek() : null;
                        Object started = pending.value(head);
                        if (!(started instanceof Started)) return 0L;
                        Started s = (Started) started;
                        if (kind == 1) s.failed = true;
                        else if (s.serverDone == 0) s.serverDone = System.nanoTime();
                        return 0L;
                    }
                },
                new Hook(CONVERSATION, "complete", "(" + BACKEND_MESSAGE + ")", Hook.ENTER | Hook.SELF) {
                    @Override
                    public long probeEnter(int id, Object self, Object arg0) {
                        end(calls, pending, self, null);
                        return 0L;
                    }
                },
                new Hook(CONVERSATION, "onError", "(Ljava/lang/Throwable;)", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object error) {
                        end(calls, pending, self, error instanceof Throwable ? (Throwable) error : null);
                        return 0L;
                    }
                });
    }

    /** 0: ReadyForQuery, 1: ErrorResponse, -1: any other message; learns each class from its first message. */
    private static int kind(Class<?> c, Class<?>[] ends) {
        if (c == ends[0]) return 0;
        if (c == ends[1]) return 1;
        if (ends[0] != null && ends[1] != null) return -1;
        String name = c.getName();
        if (ends[0] == null && name.equals(READY_FOR_QUERY)) {
            ends[0] = c;
            return 0;
        }
        if (ends[1] == null && name.equals(ERROR_RESPONSE)) {
            ends[1] = c;
            return 1;
        }
        return -1;
    }

    private static void end(CallProbe calls, PendingCalls pending, Object conversation, Throwable error) {
        long end = System.nanoTime();
        Object started = pending.value(conversation);
        if (!(started instanceof Started)) return;
        long start = pending.take(conversation);
        if (start == PendingCalls.NONE) return;
        Started s = (Started) started;
        long done = s.serverDone;
        Throwable failure = error != null ? error : s.failed ? JdkHttpHooks.ServerError.INSTANCE : null;
        // Recorded on the driver's event loop or the subscriber's thread, neither blocked by a non-blocking query.
        calls.record(done != 0 ? done : end, s.stats, s.stats.target, start, failure, false);
    }
}
