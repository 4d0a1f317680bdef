package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spring MVC service written outside the lab (session 23), recorded by {@code culprit diagnose}:
 * a generated 20 KB decision-table method, which HotSpot never compiles, read as cpu-hotspot with
 * the generic fix; the same service with a 5 MB code cache ran flushed framework code interpreted;
 * a file read a byte at a time through a bare FileInputStream read as "file-system calls (listing,
 * stat-ing and opening files)" with the fix for walking a tree.
 */
class OutsideJitAndReadsTest {

    @Test
    void aMethodOverTheJitsSizeLimitIsNamedWithTheSplitAsItsFix() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-huge-method"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.PricingRules.score");
        assertThat(f.summary()).isEqualTo("PricingRules.score runs in the interpreter: 100 % of its 756 samples on top of the"
                + " stack were interpreted, 99 % of JFR's execution samples, while the rest of the service ran compiled"
                + " (0 % interpreted): the JIT does not compile it.");
        assertThat(f.explanation()).contains("larger than 8,000 bytes of bytecode", "DontCompileHugeMethods");
        assertThat(f.fix()).startsWith("Split PricingRules.score into methods under 8,000 bytes of bytecode");
        assertThat(f.explains()).contains("cpu-hotspot", "cpu-saturation");
        assertThat(f.confirm()).isEqualTo("culprit exec 20198 \"vmoption DontCompileHugeMethods\"");
    }

    @Test
    void theSameRulesAsDataInALoopRunCompiled() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-huge-method-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).endsWith("compiled code carries the load.");
    }

    /**
     * The lab's receipt-leak fixed twin on CI's 2 busy CPUs: Pattern$GroupHead.match (47 bytes) was
     * interpreted in all its samples, but so was a quarter of the rest: the JIT was behind (it
     * compiled the method at tier 4 twelve seconds into a rerun), not refusing a huge method.
     */
    @Test
    void aSmallMethodInterpretedBesideAnInterpretedServiceIsTheJitLaggingNotARefusal() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("receipt-leak-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).isEqualTo("37 % of 153 execution samples ran interpreted, across the service (the most,"
                + " Pattern$GroupHead.match: 100 % of its 26 samples on top of the stack were interpreted, 17 % of JFR's"
                + " execution samples): the JIT was still compiling, not refusing one method.");
        assertThat(f.explanation()).endsWith("here the rest of the service ran 24 % interpreted.");
        assertThat(f.fix()).doesNotContain("Split");
    }

    @Test
    void aFullCodeCacheIsNamedWithItsSizeAndHowOftenItFilled() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-code-cache-full"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("the code cache (5 MB)");
        assertThat(f.summary()).isEqualTo("20 % of 697 execution samples ran interpreted: the code cache filled 8 time(s) since"
                + " the JVM started (its fullest part has 598 KB of 5 MB left), and a full code cache stops the JIT.");
        assertThat(f.fix()).startsWith("Raise -XX:ReservedCodeCacheSize (5 MB here; double it, or remove the flag for HotSpot's 240 MB)");
        // Tomcat's flushed code ran interpreted beside a compiled hot method that is hot on its own.
        assertThat(f.explains()).doesNotContain("cpu-hotspot").contains("cpu-saturation");
    }

    @Test
    void aJvmRunWithTheJitOffIsNamedByItsFlag(@TempDir Path tmp) throws Exception {
        Path dir = Fixtures.copy("outside-huge-method", tmp.resolve("case"));
        Path info = dir.resolve("case.json");
        Files.writeString(info, Files.readString(info).replace("\"jvmArgs\" : \"-Xmx256m\"", "\"jvmArgs\" : \"-Xmx256m -Xint\""));
        // The recorded samples say 99 % interpreted; what the rule reads for its cause is the flag.
        Finding f = new InterpretedCodeRule().evaluate(new Evidence(CaseFile.open(dir)));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("the JVM's flags: -Xint");
        assertThat(f.summary()).endsWith("ran interpreted: the JVM runs with -Xint, which turns the JIT off.");
    }

    @Test
    void aFileReadAByteAtATimeIsNamedAsUnbufferedReads() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-unbuffered-read"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Api.export");
        assertThat(f.summary()).contains("in its call to java.io.FileInputStream.read",
                "is reading or writing a file a few bytes at a time (a system call each)");
        assertThat(f.fix()).startsWith("The code reads or writes the file through an unbuffered stream a few bytes at a time")
                .contains("BufferedInputStream");
    }
}
