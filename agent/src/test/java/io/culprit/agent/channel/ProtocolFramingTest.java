package io.culprit.agent.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** The line formats of docs/ARCHITECTURE.md, byte for byte. */
class ProtocolFramingTest {
    @Test
    void agentMessagesAreSingleJsonLines() {
        assertThat(Messages.out("a\nb")).isEqualTo("{\"t\":\"out\",\"text\":\"a\\nb\"}\n");
        assertThat(Messages.data(Map.of("k", 1))).isEqualTo("{\"t\":\"data\",\"data\":{\"k\":1}}\n");
        assertThat(Messages.err("refused: bad token")).isEqualTo("{\"t\":\"err\",\"text\":\"refused: bad token\"}\n");
        assertThat(Messages.end(3)).isEqualTo("{\"t\":\"end\",\"code\":3}\n");
    }

    @Test
    void parsesTheFirstLine() {
        Request r = Request.parse("{\"token\":\"ab\",\"cmd\":\"thread -n 3\",\"json\":true,\"width\":120}");
        assertThat(r.token).isEqualTo("ab");
        assertThat(r.cmd).isEqualTo("thread -n 3");
        assertThat(r.json).isTrue();
        assertThat(r.width).isEqualTo(120);
    }

    @Test
    void defaultsAndOddValues() {
        Request r = Request.parse("{\"cmd\":\"jvm\"}");
        assertThat(r.token).isNull();
        assertThat(r.json).isFalse();
        assertThat(r.width).isEqualTo(80);
        assertThat(Request.parse("{\"token\":5,\"cmd\":\"x\",\"width\":5}").token).isNull();
        assertThat(Request.parse("{\"cmd\":\"x\",\"width\":5}").width).isEqualTo(80);
        assertThat(Request.parse("not json")).isNull();
        assertThat(Request.parse("[1]")).isNull();
    }

    @Test
    void recognisesCancel() {
        assertThat(Request.isCancel("{\"cancel\":true}")).isTrue();
        assertThat(Request.isCancel("{\"cancel\":false}")).isFalse();
        assertThat(Request.isCancel("garbage")).isFalse();
    }

    @Test
    void lineReaderSplitsOnNewlinesAndCapsLength() throws IOException {
        LineReader r = new LineReader(new ByteArrayInputStream("a\r\nü\nlast".getBytes(StandardCharsets.UTF_8)), 16);
        assertThat(r.readLine()).isEqualTo("a");
        assertThat(r.readLine()).isEqualTo("ü");
        assertThat(r.readLine()).isEqualTo("last");
        assertThat(r.readLine()).isNull();
        LineReader capped = new LineReader(new ByteArrayInputStream(new byte[100]), 16);
        Assertions.assertThatThrownBy(capped::readLine).hasMessageContaining("longer than 16");
    }
}
