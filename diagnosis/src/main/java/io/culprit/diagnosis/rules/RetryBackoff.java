package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import io.culprit.model.Table;
import java.util.List;
import java.util.Optional;

/**
 * A sleep that is a retry library's back-off, what it retries, and what made it retry: the
 * exception thrown under the same library frames, and the application method the library called
 * (the retried one, whose annotation or decorator holds the retry's settings). A blind Spring Boot
 * service (session 46) retried every 404 its screening partner answered for "no match", twice, 100
 * and 200 ms apart: 89 % of its request time asleep, read as "do not sleep on a request thread".
 */
final class RetryBackoff {
    /** Retry libraries' packages: Spring Framework 7's, Spring Retry, Resilience4j, Failsafe, Guava Retrying, MicroProfile's and Micronaut's. */
    static final String[] LIBRARIES = {
        "org.springframework.core.retry.", "org.springframework.resilience.retry.", "org.springframework.retry.",
        "io.github.resilience4j.retry.", "dev.failsafe.", "net.jodah.failsafe.", "com.github.rholder.retry.",
        "io.smallrye.faulttolerance.", "io.micronaut.retry.", "com.evanlennick.retry4j."
    };

    /** The retry library's frame in the sleep, the retried method (or null), and the exceptions table's row (or -1). */
    record Retry(String library, String retried, int exception, boolean clientError) { }

    private RetryBackoff() { }

    /** The retry a sleep (its stack, leaf first) is the back-off of; empty when no retry library is on it. */
    static Optional<Retry> of(Evidence ev, List<String> sleepStack) {
        String library = null;
        for (String f : sleepStack) {
            if (Frames.startsWithAny(f, LIBRARIES)) {
                library = Frames.stripLine(f);
                break;
            }
        }
        if (library == null) return Optional.empty();
        Optional<Table> exceptions = ev.rows("exceptions");
        int best = -1;
        String retried = null;
        if (exceptions.isPresent()) {
            Table t = exceptions.get();
            for (int i = 0; i < t.rows().size(); i++) {
                String app = retriedIn(Evidence.stack(t, i, "stack"));
                if (app == null) continue;
                // The retried call's own exception, not the JDK's wrappers thrown on the way (CompletionException, a stream's "closed").
                boolean own = !Frames.isJdk(t.text(i, "type"));
                boolean bestOwn = best >= 0 && !Frames.isJdk(t.text(best, "type"));
                if (best < 0 || own && !bestOwn || own == bestOwn && t.number(i, "count") > t.number(best, "count")) {
                    best = i;
                    retried = app;
                }
            }
        }
        boolean clientError = best >= 0 && clientError(exceptions.get(), best);
        return Optional.of(new Retry(library, retried, best, clientError));
    }

    /** The application frame the retry library called, in an exception's stack (leaf first): the last one before the library's. */
    private static String retriedIn(List<String> leafFirst) {
        String app = null;
        for (String f : leafFirst) {
            if (Frames.startsWithAny(f, LIBRARIES)) return app;
            if (Frames.isApplication(f)) app = f;
        }
        return null;
    }

    /** An HTTP 4xx: the server's answer to this request, which no retry changes. */
    private static boolean clientError(Table t, int row) {
        String type = t.text(row, "type");
        String message = Evidence.text(t, row, "message");
        return type.contains("ClientErrorException") || type.contains("$NotFound") || type.contains("$BadRequest")
                || type.contains("$Conflict") || type.contains("$UnprocessableEntity") || type.endsWith("NotFoundException")
                || message.matches("^4\\d\\d\\b.*");
    }
}
