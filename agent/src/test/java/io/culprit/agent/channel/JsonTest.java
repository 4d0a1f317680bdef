package io.culprit.agent.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void writesNestedValuesAndEscapes() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\\c\nd\te\u0001");
        m.put("n", 3L);
        m.put("d", 1.5);
        m.put("nan", Double.NaN);
        m.put("b", true);
        m.put("z", null);
        m.put("l", List.of(1, "x"));
        m.put("a", new long[] {4, 5});
        assertThat(Json.write(m)).isEqualTo(
                "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\",\"n\":3,\"d\":1.5,\"nan\":null,\"b\":true,\"z\":null,\"l\":[1,\"x\"],\"a\":[4,5]}");
    }

    @Test
    void roundTripsWhatTheProtocolCarries() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("text", "line 1\nline \"2\" – ünïcode ✓");
        m.put("list", Arrays.asList(1L, -2L, 2.5, false, null, Map.of("k", "v")));
        assertThat(Json.parse(Json.write(m))).isEqualTo(m);
    }

    @Test
    void parsesWhitespaceUnicodeEscapesAndNumbers() {
        assertThat(Json.parse(" { \"a\" : [ 1 , 2e3, -0.5 ], \"u\": \"\\u00e9\\/\" } "))
                .isEqualTo(Map.of("a", List.of(1L, 2000.0, -0.5), "u", "é/"));
    }

    @Test
    void rejectsMalformedInputWithAPosition() {
        assertThatThrownBy(() -> Json.parse("{\"a\":1")).hasMessageStartingWith("bad JSON at 6");
        assertThatThrownBy(() -> Json.parse("{\"a\":1} x")).hasMessageContaining("trailing");
        assertThatThrownBy(() -> Json.parse("{a:1}")).hasMessageContaining("expected a key");
        assertThatThrownBy(() -> Json.parse("\"abc")).hasMessageContaining("unterminated");
        assertThatThrownBy(() -> Json.parse("")).hasMessageContaining("unexpected end");
    }
}
