package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cpu-hotspot on hand-made collapsed profiles: which samples a method owns, and which it leaves to other rules. */
class CpuHotspotRuleTest {
    @TempDir Path dir;

    private static final String REQUEST = "java.lang.Thread.run;org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run;"
            + "org.apache.catalina.connector.CoyoteAdapter.service;org.springframework.web.servlet.DispatcherServlet.doDispatch;"
            + "com.shop.web.TagController.tags;";

    private Evidence profile(String collapsed) {
        return CaseBuilder.in(dir, 10, 2).file("profiles/cpu.collapsed", collapsed).evidence();
    }

    @Test
    void aQuadraticLookupUnderOneMethodIsCriticalAndNamesItsLeaf() {
        Finding f = new CpuHotspotRule().evaluate(profile(
                REQUEST + "com.shop.catalog.Tags.distinct;java.util.ArrayList.contains;java.util.ArrayList.indexOfRange;java.lang.String.equals 600\n"
                        + REQUEST + "com.shop.catalog.Tags.distinct 50\n"
                        + REQUEST + "com.shop.catalog.Tags.lambda$distinct$2;java.util.ArrayList.contains 50\n"
                        + REQUEST + "org.springframework.jdbc.core.JdbcTemplate.query;org.postgresql.core.v3.QueryExecutorImpl.execute 200\n"
                        + "G1ParScanThreadState::trim_queue 100\n"
                        + "start_thread;msort_with_tmp.part.0;/usr/lib/x86_64-linux-gnu/libz.so.1.2.13 40\n"
                        + REQUEST + "rx.internal.util.SubscriptionList.unsubscribeFromAll;java.util.ArrayList.get 60\n"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.shop.catalog.Tags.distinct");
        assertThat(f.summary()).isEqualTo("com.shop.catalog.Tags.distinct computes in 64 % of all CPU samples, with nothing but"
                + " the JDK and computing libraries below it; 93 % of it in its call to java.util.ArrayList.contains, the hottest"
                + " leaf java.lang.String.equals (86 %); that is searching a list item by item (List.contains or indexOf"
                + " inside a loop).");
        // a linear search per item has a cure of its own: a set
        assertThat(f.fix()).startsWith("Each List.contains or indexOf compares the value with every item").contains("HashSet");
        // native frames (the C library's sort, a shared object) and RxJava are not the application's
        assertThat(Frames.isApplication("msort_with_tmp.part.0")).isFalse();
        assertThat(Frames.isApplication("rx.internal.util.SubscriptionList.unsubscribeFromAll")).isFalse();
        assertThat(f.explains()).contains("cpu-saturation", "tail-latency");
        assertThat(f.confirm()).contains("trace com.shop.catalog.Tags distinct -n 3");
    }

    @Test
    void anApplicationFilterAroundTheWholeRequestIsNotAHotspot() {
        // The application's filter is the deepest application frame of every sample below it, but
        // Spring and Tomcat run between it and the work: the work is theirs, not the filter's.
        String filter = "java.lang.Thread.run;org.apache.catalina.core.ApplicationFilterChain.doFilter;com.shop.web.AuditFilter.doFilter;"
                + "org.apache.catalina.core.ApplicationFilterChain.doFilter;org.springframework.web.servlet.DispatcherServlet.doDispatch;";
        Finding f = new CpuHotspotRule().evaluate(profile(
                filter + "org.springframework.web.method.support.InvocableHandlerMethod.invoke;java.util.HashMap.get 900\n"
                        + filter + "com.shop.web.TagController.tags;java.util.ArrayList.get 100\n"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).isEqualTo("the application method computing most on its own, com.shop.web.TagController.tags,"
                + " holds 10 % of CPU samples.");
    }

    @Test
    void costsOtherRulesNameAreLeftToThem() {
        Finding f = new CpuHotspotRule().evaluate(profile(
                REQUEST + "com.shop.Parse.qty;java.lang.NumberFormatException.<init>;java.lang.Throwable.fillInStackTrace 300\n"
                        + REQUEST + "com.shop.Codec.converters;java.lang.ClassLoader.loadClass 300\n"
                        + REQUEST + "com.shop.Log.audit;ch.qos.logback.classic.Logger.info 300\n"
                        + REQUEST + "com.shop.Orders.lines;com.zaxxer.hikari.pool.ProxyPreparedStatement.executeQuery 300\n"
                        + REQUEST + "com.shop.Tags.distinct;java.util.ArrayList.contains 150\n"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("com.shop.Tags.distinct, holds 11 % of CPU samples");
    }

    @Test
    void aMethodHotInItsOwnCodeSaysSoAndAFewSamplesAreNoVerdict() {
        Finding own = new CpuHotspotRule().evaluate(profile(REQUEST + "com.shop.Prices.round 300\n"
                + "java.lang.Thread.run;org.apache.coyote.http11.Http11Processor.service;java.util.HashMap.get 700\n"));
        assertThat(own.severity()).isEqualTo(Severity.WARN);
        assertThat(own.summary()).endsWith("below it; most of it in its own code.");

        Finding few = new CpuHotspotRule().evaluate(profile(REQUEST + "com.shop.Prices.round 60\n"));
        assertThat(few.severity()).isEqualTo(Severity.OK);
        assertThat(few.summary()).isEqualTo("only 60 CPU samples: too few to weigh one method's share.");
    }

    @Test
    void passwordHashingThroughSpringIsTheCallersComputation() {
        // BCrypt at a high cost factor on every login: Spring Security's crypto computes in place.
        Finding f = new CpuHotspotRule().evaluate(profile(
                REQUEST + "com.shop.auth.Login.check;org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder.matches;"
                        + "org.springframework.security.crypto.bcrypt.BCrypt.encipher 700\n"
                        + REQUEST + "com.shop.auth.Login.check;org.springframework.jdbc.core.JdbcTemplate.query;org.h2.command.Command.executeQuery 300\n"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.shop.auth.Login.check");
        assertThat(f.summary()).contains("computes in 70 %", "in its call to org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder.matches",
                "the hottest leaf org.springframework.security.crypto.bcrypt.BCrypt.encipher", "; that is password hashing or key derivation (slow on purpose)");
        assertThat(f.fix()).startsWith("Password hashing and key derivation are slow on purpose");
    }

    @Test
    void aBacktrackingRegularExpressionGetsTheRegexCure() {
        Finding f = new CpuHotspotRule().evaluate(profile(
                REQUEST + "com.shop.Comments.screen;java.util.regex.Matcher.find;java.util.regex.Matcher.search;"
                        + "java.util.regex.Pattern$CharPropertyGreedy.match 500\n"
                        + REQUEST + "com.shop.Comments.screen;java.lang.String.repeat 100\n"
                        + "java.lang.Thread.run;org.apache.coyote.http11.Http11Processor.service;java.util.HashMap.get 400\n"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("83 % of it in its call to java.util.regex.Matcher.find",
                "; that is java.util.regex (regular-expression matching)");
        assertThat(f.fix()).startsWith("Regular expressions run on every request. If the pattern nests or chains unbounded"
                + " quantifiers").contains("it backtracks", "static final Pattern");
    }

    @Test
    void randomIdsNameSecureRandomAndWorkInsideAMapComputeTakesTurns() {
        // UUID.randomUUID per item: the shared secure generator, not the method's own code.
        Finding ids = new CpuHotspotRule().evaluate(profile(
                REQUEST + "com.shop.Lines.ids;java.util.UUID.randomUUID;java.security.SecureRandom.nextBytes;"
                        + "sun.security.provider.NativePRNG$RandomIO.implNextBytes;sun.security.provider.DigestBase.engineUpdate 300\n"
                        + "java.lang.Thread.run;org.apache.coyote.http11.Http11Processor.service;java.util.HashMap.get 700\n"));
        assertThat(ids.severity()).isEqualTo(Severity.WARN);
        assertThat(ids.summary()).contains("100 % of it in its call to java.util.UUID.randomUUID", "; that is SecureRandom");
        assertThat(ids.fix()).startsWith("UUID.randomUUID() and new SecureRandom()");
        assertThat(ids.explains()).doesNotContain("lock-contention");

        // A percentile kept by sorting the whole window inside ConcurrentHashMap.compute.
        Finding p99 = new CpuHotspotRule().evaluate(profile(
                REQUEST + "com.shop.Stats.record;java.util.concurrent.ConcurrentHashMap.compute;com.shop.Stats.lambda$record$0;"
                        + "java.util.Arrays.sort;java.util.DualPivotQuicksort.sort 700\n"
                        + REQUEST + "com.shop.Stats.record;java.util.Random.nextInt 100\n"
                        + "java.lang.Thread.run;org.apache.coyote.http11.Http11Processor.service;java.util.HashMap.get 200\n"));
        assertThat(p99.culprit()).isEqualTo("com.shop.Stats.record");
        assertThat(p99.summary()).contains("88 % of it in its call to java.util.Arrays.sort", "; that is sorting", "inside ConcurrentHashMap.compute or merge, holding the lock of the key's bin");
        assertThat(p99.fix()).startsWith("The same data is sorted on every call").contains("Do the work outside the map's compute");
        assertThat(p99.explains()).contains("lock-contention");
    }

    @Test
    void withoutAProfileItIsNotAssessed() {
        Finding f = new CpuHotspotRule().evaluate(CaseBuilder.in(dir, 10, 2).evidence());
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).contains("no cpu profile");
    }
}
