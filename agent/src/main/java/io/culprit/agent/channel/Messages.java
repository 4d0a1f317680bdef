package io.culprit.agent.channel;

import java.util.LinkedHashMap;
import java.util.Map;

/** Agent → client lines of the protocol in docs/ARCHITECTURE.md. */
public final class Messages {
    /** Exit codes carried by {@code end}. */
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int BAD_INPUT = 2;
    public static final int REFUSED = 3;

    private Messages() {
    }

    public static String out(String text) {
        return line("out", "text", text);
    }

    public static String data(Object data) {
        return line("data", "data", data);
    }

    public static String err(String text) {
        return line("err", "text", text);
    }

    public static String end(int code) {
        return line("end", "code", code);
    }

    private static String line(String type, String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", type);
        m.put(key, value);
        return Json.write(m) + "\n";
    }
}
