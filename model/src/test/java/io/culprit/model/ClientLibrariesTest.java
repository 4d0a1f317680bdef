package io.culprit.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which frames are a client's, and which of those the probes time, across pools and drivers. */
class ClientLibrariesTest {

    /**
     * The SQL probe times every driver's JDBC execution, so a wait in it is a call already
     * counted, whichever pool (or none) is above it; the driver's other methods (a commit) are not.
     */
    @Test
    void aDriversJdbcExecutionIsProbedUnderAnyPool() {
        assertThat(ClientLibraries.isProbed("org.postgresql.jdbc.PgPreparedStatement.executeQuery:134")).isTrue();
        assertThat(ClientLibraries.isProbed("com.mysql.cj.jdbc.ClientPreparedStatement.execute:370")).isTrue();
        assertThat(ClientLibraries.isProbed("org.h2.jdbc.JdbcStatement.executeBatch")).isTrue();
        assertThat(ClientLibraries.isProbed("org.postgresql.jdbc.PgConnection.commit:885")).isFalse();
        // A template's execute holds the connection's checkout too: not the statement's time.
        assertThat(ClientLibraries.isProbed("org.springframework.jdbc.core.JdbcTemplate.execute:658")).isFalse();
        assertThat(ClientLibraries.isProbed("com.acme.Jobs.execute:12")).isFalse();
    }

    @Test
    void poolsAndDriversAreDataAccessButC3p0sCheckoutWaitsStayTheApplications() {
        assertThat(ClientLibraries.isDataAccess("org.apache.tomcat.jdbc.pool.ConnectionPool.borrowConnection:700")).isTrue();
        assertThat(ClientLibraries.isDataAccess("com.alibaba.druid.pool.DruidPooledPreparedStatement.executeQuery:227")).isTrue();
        assertThat(ClientLibraries.isDataAccess("com.ibm.db2.jcc.am.PreparedStatement.executeQuery")).isTrue();
        assertThat(ClientLibraries.isDataAccess("com.mchange.v2.resourcepool.BasicResourcePool.awaitAvailable:1503")).isFalse();
        assertThat(ClientLibraries.isClient("org.postgresql.jdbc.PgStatement.executeInternal")).isTrue();
        // a Jakarta EE server's JPA (EclipseLink) and JDBC pool wrappers (Payara's, GlassFish's)
        assertThat(ClientLibraries.isDataAccess("org.eclipse.persistence.internal.databaseaccess.DatabaseAccessor.executeSelect:1026")).isTrue();
        assertThat(ClientLibraries.isDataAccess("com.sun.gjc.spi.base.PreparedStatementWrapper.executeQuery:120")).isTrue();
    }

    /** gRPC's generated stubs sit in the service's package but are the client's plumbing; the service's own Grpc classes are not stubs. */
    @Test
    void generatedGrpcStubsAreTheClientsNotTheCallers() {
        assertThat(ClientLibraries.isClient("fleet.v1.DispatchGrpc$DispatchBlockingStub.assign:412")).isTrue();
        assertThat(ClientLibraries.isClient("fleet.v1.DispatchGrpc$DispatchFutureStub.assign")).isTrue();
        assertThat(ClientLibraries.isClient("fleet.v1.DispatchGrpc$DispatchBlockingV2Stub")).isTrue();
        assertThat(ClientLibraries.isClient("io.grpc.stub.ClientCalls.blockingUnaryCall:182")).isTrue();
        assertThat(ClientLibraries.isProbed("io.grpc.stub.ClientCalls.blockingUnaryCall:182")).isTrue();
        assertThat(ClientLibraries.isClient("fleet.v1.DispatchGrpc$AsyncService.assign:300")).isFalse();
        assertThat(ClientLibraries.isClient("fleet.RouteGrpcStubs.assign:12")).isFalse();
        assertThat(ClientLibraries.isClient("fleet.DispatchService.assign:40")).isFalse();
    }
}
