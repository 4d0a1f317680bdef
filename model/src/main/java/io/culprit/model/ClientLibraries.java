package io.culprit.model;

import java.util.Set;

/**
 * The libraries that stand between an application and its dependencies: connection pools, JDBC
 * drivers and embedded databases, templates and ORMs, Redis and HTTP clients and the async
 * plumbing under them. A wait or a call seen inside them was asked for by the first frame outside
 * them (and outside the JDK): the code a fix goes into. Keyed to libraries, never to one
 * application, so it names the caller in any service.
 */
public final class ClientLibraries {
    /** JDBC drivers and embedded databases: every SQL statement a service runs ends in one of them. */
    private static final String[] DRIVERS = {
        "org.h2.", "org.postgresql.", "com.mysql.", "org.mariadb.", "oracle.jdbc.", "com.microsoft.sqlserver.", "org.hsqldb.",
        "org.apache.derby.", "org.sqlite.", "com.ibm.db2.", "com.clickhouse.", "net.snowflake.", "org.firebirdsql.",
        "com.amazon.redshift.", "io.trino.jdbc.", "com.sap.db."
    };
    /**
     * Between the application and a SQL database: pools (commons-pool2 under DBCP2 included; not
     * c3p0, whose checkout waits in {@code Object.wait} are the locks table's), templates, ORMs and
     * the drivers.
     */
    private static final String[] DATA_ACCESS = {
        "com.zaxxer.", "org.apache.commons.dbcp2.", "org.apache.commons.pool2.", "org.apache.tomcat.jdbc.", "com.alibaba.druid.",
        "oracle.ucp.", "com.jolbox.", "org.vibur.", "org.springframework.", "org.hibernate.", "org.jooq.", "org.mybatis.", "org.apache.ibatis.",
        "com.github.pagehelper.", "com.baomidou.mybatisplus.", "tk.mybatis.",
        "jakarta.persistence.", "org.jdbi.", "com.querydsl.", "io.ebean.", "com.p6spy.", "net.ttddyy.", "io.micrometer.", "io.opentelemetry.",
        // R2DBC: its SPI, pool and drivers (PostgreSQL's and H2's under io.r2dbc., MariaDB's under org.mariadb.), MySQL's
        "io.r2dbc.", "io.asyncer.r2dbc.", "dev.miku.r2dbc.",
        // the Vert.x SQL client and its drivers (Quarkus' reactive datasources)
        "io.vertx.sqlclient.", "io.vertx.pgclient.", "io.vertx.mysqlclient.", "io.vertx.mssqlclient.", "io.vertx.db2client.", "io.vertx.oracleclient.",
        // Helidon's DbClient (over JDBC and a pool), Micronaut Data and its transactions
        "io.helidon.dbclient.", "io.micronaut.data.", "io.micronaut.transaction.",
        // Quarkus: its pool (Agroal), Hibernate ORM and Panache, its JTA transactions (Narayana)
        "io.agroal.", "io.quarkus.agroal.", "io.quarkus.hibernate.", "io.quarkus.narayana.", "com.arjuna.",
        // Jakarta EE servers: EclipseLink (GlassFish's and Payara's JPA), their JDBC pool's wrappers and pool
        "org.eclipse.persistence.", "com.sun.gjc.", "com.sun.enterprise.resource.", "org.glassfish.resourcebase.",
        "com.sun.enterprise.connectors."
    };
    /** The JDBC methods culprit's SQL probe times, in every driver's statements (see {@link #isProbed}). */
    private static final Set<String> JDBC_EXECUTE = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");
    /** Between the application and Redis or a remote HTTP service (Spring's clients are covered above). */
    private static final String[] REMOTE = {
        "redis.clients.", "io.lettuce.", "org.redisson.", "okhttp3.", "okio.", "org.apache.hc.", "org.apache.http.",
        "io.netty.", "reactor.", "kotlin.", "kotlinx.", "feign.", "retrofit2.", "io.github.resilience4j.",
        "com.netflix.hystrix.", "org.eclipse.jetty.client.", "io.vertx.redis.", "io.helidon.webclient.",
        "io.micronaut.http.client.", "io.micronaut.redis.",
        // Quarkus' Redis client and REST client, and the Mutiny plumbing (and Vert.x's Mutiny bindings) under them
        "io.quarkus.redis.", "io.quarkus.rest.client.", "io.quarkus.restclient.", "org.jboss.resteasy.reactive.client.",
        "io.smallrye.mutiny.", "io.vertx.mutiny.",
        // Ktor's client and the pipelines its plugins run in (its server's too, which only run the handler)
        "io.ktor.client.", "io.ktor.util.pipeline.",
        // gRPC-Java's client, its channels and transports (its generated stubs are the service's package: see isGrpcStub)
        "io.grpc."
    };

    /**
     * The clients whose calls culprit's framework probes time (agent/probe: every JDBC statement's
     * execution, which runs in a driver's frames ({@link #isProbed}), HikariCP, the
     * JDK's HttpClient and HttpURLConnection, Apache HttpClient 5, OkHttp, Jedis, Lettuce, Spring's
     * RestTemplate, RestClient and WebClient): a wait inside them is already a call in the {@code calls} table.
     */
    private static final String[] PROBED = {
        "com.zaxxer.hikari.", "org.apache.commons.dbcp2.DelegatingStatement.", "org.apache.commons.dbcp2.DelegatingPreparedStatement.",
        "org.apache.commons.dbcp2.DelegatingCallableStatement.", "java.net.http.", "jdk.internal.net.http.",
        // only up to the response head: the body the caller reads afterwards is no call's time
        "sun.net.www.protocol.http.HttpURLConnection.getInputStream0", "org.apache.hc.client5.", "okhttp3.",
        "redis.clients.jedis.", "io.lettuce.", "org.springframework.http.client.",
        "org.springframework.web.reactive.function.client.", "io.r2dbc.postgresql.", "io.vertx.sqlclient.", "io.vertx.redis.",
        "io.helidon.webclient.",
        // Quarkus' Redis client over Vert.x's (its blocking API awaits the reply on a latch) and its REST client
        "io.quarkus.redis.", "org.jboss.resteasy.reactive.client.",
        // gRPC's blocking and future stubs' calls (GrpcClientHooks)
        "io.grpc.stub.ClientCalls.", "io.grpc.internal.ClientCallImpl"
    };

    /**
     * Blockers a client's caller parks on until the client's own threads hand it the reply: a remote
     * call's wait, not contention. gRPC's blocking stubs park on the call's {@code ThreadlessExecutor},
     * which runs the reply's callbacks on the caller's thread once Netty's event loop has read them.
     */
    private static final String[] REPLY_BLOCKERS = {"io.grpc.stub.ClientCalls$ThreadlessExecutor"};

    private ClientLibraries() { }

    /** Whether a park on an instance of {@code blockerClass} waits for a client's reply (see {@link #REPLY_BLOCKERS}). */
    public static boolean awaitsReply(String blockerClass) {
        for (String b : REPLY_BLOCKERS) if (blockerClass.equals(b)) return true;
        return false;
    }

    /**
     * A frame inside a client whose calls the framework probes time. SQL by the driver's
     * statement's JDBC method ({@code org.postgresql.jdbc.PgPreparedStatement.executeQuery:...}):
     * the probe times it whatever pool, if any, called it.
     */
    public static boolean isProbed(String frame) {
        for (String p : PROBED) if (frame.startsWith(p)) return true;
        return isDriver(frame) && JDBC_EXECUTE.contains(method(frame));
    }

    /** Whether some frame of {@code stack} is inside a probed client ({@link #isProbed}): a wait there is that call's own. */
    public static boolean insideProbedCall(java.util.List<String> stack) {
        for (String f : stack) if (isProbed(f)) return true;
        return false;
    }

    /** A frame ({@code class.method:line}) or class name of a pool, driver, template or ORM. */
    public static boolean isDataAccess(String frame) {
        if (isDriver(frame)) return true;
        for (String p : DATA_ACCESS) if (frame.startsWith(p)) return true;
        return false;
    }

    private static boolean isDriver(String frame) {
        for (String p : DRIVERS) if (frame.startsWith(p)) return true;
        return false;
    }

    /** {@code a.b.C.m:12} → {@code m}. */
    private static String method(String frame) {
        int colon = frame.indexOf(':');
        String f = colon < 0 ? frame : frame.substring(0, colon);
        return f.substring(f.lastIndexOf('.') + 1);
    }

    /**
     * A frame or class name of any dependency client, or generated code around one (proxies,
     * {@code $$}-named subclasses): not where the call was decided.
     */
    public static boolean isClient(String frame) {
        if (isDataAccess(frame) || frame.contains("$$") || frame.contains("$Proxy") || isGrpcStub(frame)) return true;
        for (String p : REMOTE) if (frame.startsWith(p)) return true;
        return false;
    }

    /**
     * A frame of a stub protoc's gRPC plugin generated ({@code fleet.DispatchGrpc$DispatchBlockingStub.assign:412}):
     * in the service's own package, but only the client's plumbing; its caller decided the call.
     */
    static boolean isGrpcStub(String frame) {
        int at = frame.indexOf("Grpc$");
        if (at < 0) return false;
        int end = frame.indexOf('.', at);
        String nested = end < 0 ? frame.substring(at) : frame.substring(at, end);
        return nested.endsWith("Stub");
    }
}
