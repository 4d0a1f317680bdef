package io.culprit.agent.internal;

import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent argument string: {@code key=value} pairs separated by commas, e.g.
 * {@code token=<64 hex chars>}. With no token (a plain {@code -javaagent:}) the agent makes its
 * own 256-bit token; the CLI then reads it from the run file.
 */
public final class AgentArgs {

    private final Map<String, String> values;

    private AgentArgs(Map<String, String> values) {
        this.values = values;
    }

    public static AgentArgs parse(String args) {
        Map<String, String> values = new LinkedHashMap<>();
        if (args != null) {
            for (String pair : args.split(",")) {
                String p = pair.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int eq = p.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("culprit agent: bad argument '" + p + "' (expected key=value)");
                }
                values.put(p.substring(0, eq).trim(), p.substring(eq + 1).trim());
            }
        }
        String token = values.get("token");
        if (token != null && !isHexToken(token)) {
            throw new IllegalArgumentException("culprit agent: token must be 32 to 128 hex characters");
        }
        return new AgentArgs(values);
    }

    /** At least 128 bits; the CLI sends 256 (64 hex chars). */
    private static boolean isHexToken(String t) {
        if (t.length() < 32 || t.length() > 128) {
            return false;
        }
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }

    /** The token given by the attaching CLI, or null. */
    public String token() {
        return values.get("token");
    }

    public String get(String key) {
        return values.get(key);
    }

    /** A fresh 256-bit token as 64 lower-case hex characters. */
    public static String randomToken() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        StringBuilder sb = new StringBuilder(64);
        for (byte b : bytes) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }
}
