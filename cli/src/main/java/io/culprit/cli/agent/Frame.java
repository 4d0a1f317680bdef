package io.culprit.cli.agent;

import com.fasterxml.jackson.databind.JsonNode;

/** One line of the agent's answer (see docs/ARCHITECTURE.md, control channel). */
public final class Frame {
    public enum Type { OUT, DATA, ERR, END }

    public final Type type;
    public final String text;
    public final JsonNode data;
    public final int code;

    private Frame(Type type, String text, JsonNode data, int code) {
        this.type = type;
        this.text = text;
        this.data = data;
        this.code = code;
    }

    static Frame parse(JsonNode n) {
        String t = n.path("t").asText();
        switch (t) {
            case "out": return new Frame(Type.OUT, n.path("text").asText(), null, 0);
            case "data": return new Frame(Type.DATA, null, n.get("data"), 0);
            case "err": return new Frame(Type.ERR, n.path("text").asText(), null, 0);
            case "end": return new Frame(Type.END, null, null, n.path("code").asInt(1));
            default: throw new IllegalStateException("agent sent an unknown frame type '" + t + "'");
        }
    }
}
