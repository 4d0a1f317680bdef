package io.culprit.agent.instrument;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.tools.attach.VirtualMachine;
import io.culprit.agent.internal.AgentArgs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Attaches the packaged agent to a pid and speaks the channel protocol (docs/ARCHITECTURE.md). */
final class AgentChannel {

    private static final ObjectMapper JSON = new ObjectMapper();

    final int port;
    final String token;

    private AgentChannel(int port, String token) {
        this.port = port;
        this.token = token;
    }

    static AgentChannel attach(long pid) throws Exception {
        Path jar = Paths.get("target", "culprit-agent.jar").toAbsolutePath();
        String token = AgentArgs.randomToken();
        VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
        try {
            vm.loadAgent(jar.toString(), "token=" + token);
        } finally {
            vm.detach();
        }
        Path run = Paths.get(System.getProperty("user.home"), ".culprit", "run", pid + ".json");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (Files.exists(run)) {
                Map<?, ?> m = JSON.readValue(Files.readAllBytes(run), Map.class);
                if (token.equals(m.get("token"))) {
                    return new AgentChannel(((Number) m.get("port")).intValue(), token);
                }
            }
            Thread.sleep(20);  // polling a file the agent writes once it listens; bounded above
        }
        throw new AssertionError("no run file for " + pid + " with our token after 30 s");
    }

    /** One command on its own connection; messages are read on a background thread. */
    final class Call {
        final StringBuilder out = new StringBuilder();
        final List<Object> data = new ArrayList<>();
        final List<String> err = new ArrayList<>();
        volatile int code = -1;
        private final Socket socket;
        private final Thread reader;

        Call(String cmd, boolean json) throws Exception {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            Map<String, Object> req = new LinkedHashMap<>();
            req.put("token", token);
            req.put("cmd", cmd);
            req.put("json", json);
            req.put("width", 120);
            socket.getOutputStream().write((JSON.writeValueAsString(req) + "\n").getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            reader = new Thread(this::read, "it-channel-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    Map<?, ?> m = JSON.readValue(line, Map.class);
                    synchronized (this) {
                        switch ((String) m.get("t")) {
                            case "out": out.append(m.get("text")).append('\n'); break;
                            case "data": data.add(m.get("data")); break;
                            case "err": err.add((String) m.get("text")); break;
                            default: code = ((Number) m.get("code")).intValue();
                        }
                        notifyAll();
                    }
                    if (code >= 0) {
                        return;
                    }
                }
            } catch (Exception e) {
                synchronized (this) {
                    err.add("connection: " + e);
                    notifyAll();
                }
            }
        }

        /** Waits until the output contains {@code text} (e.g. the "Affect(" line of an install). */
        synchronized Call awaitOut(String text, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (!out.toString().contains(text) && code < 0 && System.nanoTime() < deadline) {
                wait(100);
            }
            if (!out.toString().contains(text)) {
                throw new AssertionError("no '" + text + "' within " + seconds + " s: " + this);
            }
            return this;
        }

        synchronized Call awaitEnd(int seconds) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (code < 0 && System.nanoTime() < deadline) {
                wait(100);
            }
            socket.close();
            if (code < 0) {
                throw new AssertionError("command did not end within " + seconds + " s: " + this);
            }
            return this;
        }

        @Override
        public synchronized String toString() {
            return "code=" + code + " err=" + err + " out=" + out + " data=" + data;
        }
    }

    Call start(String cmd) throws Exception {
        return new Call(cmd, false);
    }

    Call run(String cmd, boolean json) throws Exception {
        return new Call(cmd, json).awaitEnd(60);
    }
}
