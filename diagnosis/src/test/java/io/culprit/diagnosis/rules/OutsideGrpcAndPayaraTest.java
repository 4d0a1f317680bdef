package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 48's blind rounds 18 (a gRPC-Java service, observed under its own load) and 19 (a Jakarta
 * EE service on Payara Micro): what the rules say on a lock held across a blocking stub's call, a
 * channel built per request, an EJB container's singleton and stateful locks, and a JPA query that
 * filters through a function and pages; and a token issued for every call.
 */
class OutsideGrpcAndPayaraTest {

    @Test
    void aMonitorThatChangesHandsIsContentionNotAStuckThread() {
        assertThat(new StuckThreadsRule().evaluate(Fixtures.evidence("outside-grpc-lock-across-call")).isProblem()).isFalse();
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-grpc-lock-across-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("the lock is held across its holder's grpc \"partner.Routing/Eta\"");
        assertThat(f.fix()).startsWith("Make the call outside the lock");
    }

    @Test
    void aChannelBuiltPerRequestIsRepeatedConstructionCountedOverTheServicesOwnRequests() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-grpc-channel-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        // 8,342 channels over 16,798 requests, half of them the partner stand-in's own: 1.0 per request of the service's
        assertThat(f.summary()).startsWith("1.0 new io.grpc.internal.ManagedChannelImpl per request")
                .contains("each new channel connects again").contains("TLS handshakes");
        assertThat(f.culprit()).startsWith("com.acme.fleet.dispatch.RoutePlannerClient.connect");
        assertThat(f.fix()).startsWith("Build the ManagedChannel once");
        assertThat(f.explains()).contains("cpu-saturation");
    }

    @Test
    void aSingletonsDefaultWriteLockIsTheContainersNotAFairLockToMakeUnfair() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-payara-singleton-write-lock"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.harbourline.channel.parity.ChannelParityService.checkParity");
        assertThat(f.summary()).contains("the EJB container's lock of the @Singleton ChannelParityService")
                .contains("checkParity makes http \"GET http://127.0.0.1:8572/channels/published-rates\"")
                .doesNotContain("fair lock");
        assertThat(f.fix()).contains("@Lock(LockType.READ)").doesNotContain("unfair");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-payara-singleton-write-lock-fixed")).isProblem()).isFalse();
    }

    @Test
    void aStatefulBeanSharedByTheApplicationIsNamedWhereItIsHeld() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-payara-stateful-shared"));
        assertThat(f.culprit()).isEqualTo("com.harbourline.channel.ota.AvailabilityGateway.availability:16");
        assertThat(f.summary()).contains("a @Stateful OtaHubSession instance, which admits one call at a time");
        assertThat(f.fix()).startsWith("Make the bean @Stateless");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-payara-stateful-shared-fixed")).isProblem()).isFalse();
    }

    @Test
    void aFunctionOnTheFilteredColumnComesBeforeThePaging() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-payara-lower-email-paged"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.fix()).contains("the filter applies a function to the column (lower(guest_email))")
                .contains("CREATE INDEX ON reservation (lower(guest_email))").doesNotContain("OFFSET");
    }

    @Test
    void aTokenIssuedForEveryCallIsNamedWhereItIsFetchedNotAsTheCallItDelays() {
        Finding f = new TokenPerCallRule().evaluate(Fixtures.evidence("outside-grpc-token-per-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.acme.fleet.dispatch.PartnerTokenCredentials.lambda$applyRequestMetadata$0:54");
        assertThat(f.summary()).contains("grpc \"partner.Auth/IssueToken\" ran 3,285 times (1.0 per request")
                .contains("beside grpc \"partner.Geofence/Check\"'s 3,282");
        assertThat(f.fix()).contains("CallCredentials");
        assertThat(f.explains()).contains("slow-calls");
        // the other rounds' services fetch no token per call
        assertThat(new TokenPerCallRule().evaluate(Fixtures.evidence("outside-grpc-lock-across-call")).isProblem()).isFalse();
    }

    @Test
    void aRowLockTakenInAnEjbTransactionThatCallsOutIsHeldAcrossTheCall() {
        Finding f = new DbRowLockRule().evaluate(Fixtures.evidence("outside-payara-row-lock-across-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        // EclipseLink's frames are the client's: the caller is the EJB method whose transaction locks the row
        assertThat(f.culprit()).isEqualTo("com.harbourline.channel.rates.RatePushService.pushRate:53");
        assertThat(f.summary()).contains("the same code then calls http \"POST http://127.0.0.1:8572/channels/rates\"")
                .contains("the hold is inferred");
        assertThat(new DbRowLockRule().evaluate(Fixtures.evidence("outside-payara-row-lock-across-call-fixed")).isProblem()).isFalse();
    }
}
