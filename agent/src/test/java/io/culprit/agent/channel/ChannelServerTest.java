package io.culprit.agent.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.internal.AgentArgs;
import io.culprit.agent.internal.AgentLog;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The channel server in-process, with stand-in commands, over a real loopback socket. */
class ChannelServerTest {
    @TempDir
    Path dir;
    private AgentLog log;
    private ChannelServer server;
    private int port;
    private final String token = AgentArgs.randomToken();

    @BeforeEach
    void start() throws Exception {
        log = new AgentLog(dir.resolve("agent.log"));
        server = new ChannelServer(log, new TokenCheck(token),
                CommandRegistry.of(new Echo(), new Boom(), new Bad(), new Sleepy(), new Help()), null);
        port = server.start(args -> false);
        Sleepy.started = new CountDownLatch(1);
        Sleepy.cleaned = new CountDownLatch(1);
    }

    @AfterEach
    void stop() throws Exception {
        server.close(null);
        log.close();
    }

    @Test
    void runsACommandAndSendsDataOnlyWhenAskedForJson() throws Exception {
        List<Map<String, Object>> text = call(request(token, "echo 'a b' c", false), null);
        assertThat(text).containsExactly(msg("t", "out", "text", "a b|c"), msg("t", "end", "code", 0L));
        List<Map<String, Object>> json = call(request(token, "echo x", true), null);
        assertThat(json).containsExactly(msg("t", "out", "text", "x"), msg("t", "data", "data", List.of("x")),
                msg("t", "end", "code", 0L));
    }

    @Test
    void aLoneDashHOrDashDashHelpShowsTheCommandsUsage() throws Exception {
        for (String flag : new String[] {"-h", "--help"}) {
            assertThat(call(request(token, "echo " + flag, false), null))
                    .containsExactly(msg("t", "out", "text", "usage of echo"), msg("t", "end", "code", 0L));
        }
        // Only alone: as one argument among others it is the command's own business.
        assertThat(call(request(token, "echo x -h", false), null))
                .containsExactly(msg("t", "out", "text", "x|-h"), msg("t", "end", "code", 0L));
    }

    @Test
    void refusesAndLogsABadToken() throws Exception {
        assertThat(call(request("f".repeat(64), "echo x", false), null))
                .containsExactly(msg("t", "err", "text", "refused: bad token"), msg("t", "end", "code", 3L));
        assertThat(call("this is not json", null)).last().isEqualTo(msg("t", "end", "code", 3L));
        new Socket(InetAddress.getLoopbackAddress(), port).close(); // a liveness probe: logged, not answered
        String log = "";
        for (int i = 0; i < 100 && !log.contains("closed without a request"); i++) {
            Thread.sleep(20); // bounded poll: the probe is handled on a pool thread
            log = new String(Files.readAllBytes(dir.resolve("agent.log")), StandardCharsets.UTF_8);
        }
        assertThat(log).contains("closed without a request");
        assertThat(new String(Files.readAllBytes(dir.resolve("agent.log")), StandardCharsets.UTF_8))
                .contains("refused connection from /127.0.0.1");
    }

    @Test
    void reportsBadInputWithCodeTwo() throws Exception {
        assertThat(call(request(token, "nope", false), null))
                .containsExactly(msg("t", "err", "text", "unknown command 'nope' (try help)"), msg("t", "end", "code", 2L));
        assertThat(call(request(token, "bad", false), null))
                .containsExactly(msg("t", "err", "text", "bad: always"), msg("t", "end", "code", 2L));
        assertThat(call(request(token, "echo 'open", false), null))
                .containsExactly(msg("t", "err", "text", "unterminated single quote"), msg("t", "end", "code", 2L));
        Map<String, Object> noCmd = new LinkedHashMap<>();
        noCmd.put("token", token);
        assertThat(call(Json.write(noCmd), null)).last().isEqualTo(msg("t", "end", "code", 2L));
    }

    @Test
    void aCrashingCommandIsOneLineAndTheServerKeepsServing() throws Exception {
        assertThat(call(request(token, "boom", false), null)).containsExactly(
                msg("t", "err", "text", "boom failed: java.lang.IllegalStateException: kaput second line"),
                msg("t", "end", "code", 1L));
        assertThat(call(request(token, "echo still here", false), null)).first()
                .isEqualTo(msg("t", "out", "text", "still|here"));
    }

    @Test
    void cancelInterruptsTheCommandAndRunsItsCleanup() throws Exception {
        List<Map<String, Object>> reply = call(request(token, "sleepy", false), "{\"cancel\":true}");
        assertThat(Sleepy.cleaned.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(reply).containsExactly(msg("t", "err", "text", "cancelled"), msg("t", "end", "code", 1L));
    }

    @Test
    void disconnectCancelsToo() throws Exception {
        CountDownLatch cleaned = Sleepy.cleaned;
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            send(s, request(token, "sleepy", false));
            assertThat(Sleepy.started.await(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(cleaned.await(5, TimeUnit.SECONDS)).as("cleanup after the client went away").isTrue();
    }

    @Test
    void closeEndsEveryThreadAndThePort() throws Exception {
        CountDownLatch cleaned = Sleepy.cleaned;
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        Socket silent = new Socket(InetAddress.getLoopbackAddress(), port); // never sends its request
        send(s, request(token, "sleepy", false));
        assertThat(Sleepy.started.await(5, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        server.close(null);
        // Neither the sleeping command nor the silent client may hold the detach for its 5 s grace.
        assertThat((System.nanoTime() - t0) / 1_000_000).as("close ms").isLessThan(3000);
        assertThat(cleaned.await(5, TimeUnit.SECONDS)).isTrue();
        s.close();
        silent.close();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("culprit-"));
        boolean open;
        try (Socket again = new Socket(InetAddress.getLoopbackAddress(), port)) {
            open = true;
        } catch (java.io.IOException e) {
            open = false;
        }
        assertThat(open).isFalse();
    }

    // --- a tiny client ---

    private static String request(String token, String cmd, boolean json) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("token", token);
        m.put("cmd", cmd);
        m.put("json", json);
        return Json.write(m);
    }

    private List<Map<String, Object>> call(String first, String then) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            send(s, first);
            if (then != null) {
                assertThat(Sleepy.started.await(5, TimeUnit.SECONDS)).isTrue();
                send(s, then);
            }
            List<Map<String, Object>> got = new ArrayList<>();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) Json.parse(line);
                got.add(m);
            }
            return got;
        }
    }

    private static void send(Socket s, String line) throws Exception {
        OutputStream o = s.getOutputStream();
        o.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        o.flush();
    }

    private static Map<String, Object> msg(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    // --- stand-in commands ---

    abstract static class Stub implements Command {
        @Override
        public String summary() {
            return name();
        }

        @Override
        public String usage() {
            return name();
        }
    }

    static final class Echo extends Stub {
        @Override
        public String name() {
            return "echo";
        }

        @Override
        public void run(List<String> args, CommandContext ctx) {
            ctx.println(String.join("|", args));
            ctx.data(args);
        }
    }

    /** Stands in for the real help, which reads the real registry: says what it was asked. */
    static final class Help extends Stub {
        @Override
        public String name() {
            return "help";
        }

        @Override
        public void run(List<String> args, CommandContext ctx) {
            ctx.println("usage of " + String.join("|", args));
        }
    }

    static final class Boom extends Stub {
        @Override
        public String name() {
            return "boom";
        }

        @Override
        public void run(List<String> args, CommandContext ctx) {
            throw new IllegalStateException("kaput\nsecond line");
        }
    }

    static final class Bad extends Stub {
        @Override
        public String name() {
            return "bad";
        }

        @Override
        public void run(List<String> args, CommandContext ctx) throws CommandException {
            throw new CommandException("bad: always");
        }
    }

    /** Waits until interrupted; its cleanup counts down a latch the test watches. */
    static final class Sleepy extends Stub {
        static volatile CountDownLatch cleaned;
        static volatile CountDownLatch started;

        @Override
        public String name() {
            return "sleepy";
        }

        @Override
        public void run(List<String> args, CommandContext ctx) throws InterruptedException {
            ctx.onCancel(cleaned::countDown);
            started.countDown();
            Thread.sleep(60_000);
        }
    }
}
