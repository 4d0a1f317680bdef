package io.culprit.report.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.culprit.model.CaseFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Escaping and inlining: everything the page needs ends up inside the one file. */
public final class Html {
    private Html() { }

    public static String esc(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** An element id from any text: evidence refs, table names, profile kinds. */
    public static String id(String s) {
        return s.replaceAll("[^A-Za-z0-9_-]", "-");
    }

    /**
     * JSON safe inside a script element: a string holding "&lt;/script&gt;" (an exception
     * message, a frame) must not end the element early.
     */
    public static String scriptJson(Object value) {
        try {
            return CaseFile.json().writer().without(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT).writeValueAsString(value)
                    .replace("</", "<\\/").replace("<!--", "<\\!--");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize report data: " + e.getOriginalMessage(), e);
        }
    }

    /** A text resource from the classpath (our own CSS/JS, or a webjar's file). */
    public static String resource(String path) {
        try (InputStream in = Html.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("missing on the classpath: " + path);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Chart.js from its webjar, minus the source-map comment: a page opened with developer tools
     * would otherwise try to fetch the map.
     */
    public static String chartJs() {
        // The version comes from the webjar itself, so bumping it in the pom is the only change.
        String version = resource("META-INF/maven/org.webjars/chartjs/pom.properties").lines()
                .filter(l -> l.startsWith("version=")).map(l -> l.substring(8).strip()).findFirst()
                .orElseThrow(() -> new IllegalStateException("chartjs webjar without a version"));
        return resource("META-INF/resources/webjars/chartjs/" + version + "/dist/chart.umd.js")
                .replaceAll("(?m)^//# sourceMappingURL=.*$", "");
    }
}
