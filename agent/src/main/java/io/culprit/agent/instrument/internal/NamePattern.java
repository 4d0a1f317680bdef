package io.culprit.agent.instrument.internal;

import java.util.regex.Pattern;

/** A class or method name with Arthas-style wildcards: {@code *} any run, {@code ?} one char. */
public final class NamePattern {

    private final String text;
    private final Pattern regex;

    public NamePattern(String text) {
        this.text = text;
        StringBuilder sb = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '*') {
                sb.append(".*");
            } else if (c == '?') {
                sb.append('.');
            } else {
                sb.append(Pattern.quote(String.valueOf(c)));
            }
        }
        this.regex = Pattern.compile(sb.toString());
    }

    public boolean matches(String name) {
        return regex.matcher(name).matches();
    }

    public boolean hasWildcard() {
        return text.indexOf('*') >= 0 || text.indexOf('?') >= 0;
    }

    public String text() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }
}
