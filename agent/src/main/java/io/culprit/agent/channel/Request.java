package io.culprit.agent.channel;

import java.util.Map;

/** The first line of a connection: {@code {"token":..,"cmd":..,"json":false,"width":120}}. */
public final class Request {
    public final String token;
    public final String cmd;
    public final boolean json;
    public final int width;

    private Request(String token, String cmd, boolean json, int width) {
        this.token = token;
        this.cmd = cmd;
        this.json = json;
        this.width = width;
    }

    /** Null when the line is not a JSON object: the caller treats that as a missing token. */
    public static Request parse(String line) {
        Object parsed;
        try {
            parsed = Json.parse(line);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (!(parsed instanceof Map)) {
            return null;
        }
        Map<?, ?> m = (Map<?, ?>) parsed;
        Object token = m.get("token");
        Object cmd = m.get("cmd");
        Object width = m.get("width");
        int w = width instanceof Number ? ((Number) width).intValue() : 80;
        return new Request(token instanceof String ? (String) token : null,
                cmd instanceof String ? (String) cmd : null,
                Boolean.TRUE.equals(m.get("json")),
                w >= 20 && w <= 1000 ? w : 80);
    }

    /** True for a later {@code {"cancel":true}} line. */
    public static boolean isCancel(String line) {
        try {
            Object parsed = Json.parse(line);
            return parsed instanceof Map && Boolean.TRUE.equals(((Map<?, ?>) parsed).get("cancel"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
