package io.culprit.agent.channel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The tokens this agent accepts. Usually one; a re-attach to a live agent adds the new CLI's
 * token so consoles opened with the earlier one keep working. Comparison is constant-time
 * ({@link MessageDigest#isEqual}) so response timing reveals nothing about a token's prefix.
 */
public final class TokenCheck {
    // Bounded so repeated re-attaches cannot grow it without limit.
    private static final int MAX_TOKENS = 8;

    private final Deque<byte[]> tokens = new ArrayDeque<>();

    public TokenCheck(String first) {
        add(first);
    }

    public synchronized void add(String token) {
        if (tokens.size() == MAX_TOKENS) {
            tokens.removeFirst();
        }
        tokens.addLast(token.getBytes(StandardCharsets.UTF_8));
    }

    public synchronized boolean accepts(String presented) {
        if (presented == null) {
            return false;
        }
        byte[] given = presented.getBytes(StandardCharsets.UTF_8);
        boolean ok = false;
        for (byte[] t : tokens) {
            // No early exit: every stored token is compared.
            ok |= MessageDigest.isEqual(t, given);
        }
        return ok;
    }
}
