package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenPerCallRuleTest {

    @Test
    void tokenAndSignInServicesAreNamedByTheirPathOrMethod() {
        assertThat(TokenPerCallRule.namesToken("POST http://127.0.0.1:8612/oauth/token")).isTrue();
        assertThat(TokenPerCallRule.namesToken("POST http://idp:8080/realms/x/protocol/openid-connect/token")).isTrue();
        assertThat(TokenPerCallRule.namesToken("partner.Auth/IssueToken")).isTrue();
        assertThat(TokenPerCallRule.namesToken("POST http://10.0.0.5/auth/login")).isTrue();
        assertThat(TokenPerCallRule.namesToken("POST http://10.0.0.5/api/v2/authenticate")).isTrue();
        assertThat(TokenPerCallRule.namesToken("GET http://10.0.0.5/credentials/partner")).isTrue();
        assertThat(TokenPerCallRule.namesToken("sts.AssumeRole")).isTrue();
    }

    @Test
    void otherEndpointsAreNot() {
        assertThat(TokenPerCallRule.namesToken("GET http://10.0.0.5/authors/17")).isFalse();
        assertThat(TokenPerCallRule.namesToken("GET http://auth.example.com/orders/17")).isFalse();
        assertThat(TokenPerCallRule.namesToken("partner.Geofence/Check")).isFalse();
        assertThat(TokenPerCallRule.namesToken("POST http://10.0.0.5/payments/authorize")).isFalse();
    }
}
