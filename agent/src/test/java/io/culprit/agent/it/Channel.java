package io.culprit.agent.it;

import io.culprit.agent.channel.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A raw protocol client (docs/ARCHITECTURE.md), independent of the CLI. */
final class Channel {
    /** Everything one command sent back. */
    static final class Reply {
        final StringBuilder out = new StringBuilder();
        final List<Object> data = new ArrayList<>();
        final List<String> err = new ArrayList<>();
        int code = -1;

        @Override
        public String toString() {
            return "code=" + code + " err=" + err + " out=" + out + " data=" + data;
        }
    }

    private Channel() {
    }

    static Reply run(int port, String token, String cmd, boolean json) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(60_000);
            Map<String, Object> req = new LinkedHashMap<>();
            req.put("token", token);
            req.put("cmd", cmd);
            req.put("json", json);
            req.put("width", 120);
            OutputStream o = s.getOutputStream();
            o.write((Json.write(req) + "\n").getBytes(StandardCharsets.UTF_8));
            o.flush();
            Reply r = new Reply();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                Map<?, ?> m = (Map<?, ?>) Json.parse(line);
                switch ((String) m.get("t")) {
                    case "out": r.out.append(m.get("text")).append('\n'); break;
                    case "data": r.data.add(m.get("data")); break;
                    case "err": r.err.add((String) m.get("text")); break;
                    case "end": r.code = ((Number) m.get("code")).intValue(); return r;
                    default: throw new AssertionError("unknown message type in " + line);
                }
            }
            throw new AssertionError("connection closed without end: " + r);
        }
    }
}
