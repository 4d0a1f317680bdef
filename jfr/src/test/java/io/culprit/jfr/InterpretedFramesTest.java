package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Table {@code jit} from a recording of this JVM running two methods that compute the same kind of
 * thing: one generated over HotSpot's 8,000-byte limit, which it never compiles, and a loop it
 * does. The first must read interpreted, the second compiled.
 */
class InterpretedFramesTest {

    @Test
    void aMethodTooLargeToCompileReadsInterpretedAndALoopCompiled() throws Exception {
        Class<?> rules = compile(700);
        Method huge = rules.getMethod("score", int.class, int.class, int.class, int.class);
        Method loop = rules.getMethod("loop", int.class, int.class, int.class, int.class);
        long[] sink = new long[1];
        Runnable both = () -> {
            try {
                for (int i = 0; i < 200; i++) {
                    sink[0] += (int) huge.invoke(null, i % 10, i % 5, i % 60, 1000 + i);
                    // The compiled loop is 10-50x faster: called more, it gets samples of its own.
                    for (int k = 0; k < 8; k++) sink[0] += (int) loop.invoke(null, i % 10, i % 5, i % 60, 1000 + i + k);
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
        long warm = System.currentTimeMillis() + 1_500;
        while (System.currentTimeMillis() < warm) both.run(); // the loop compiles; the huge method cannot
        long[] window = new long[2];
        Path jfr = Recordings.record(() -> {
            window[0] = System.currentTimeMillis();
            long end = window[0] + 3_000;
            while (System.currentTimeMillis() < end) both.run();
            window[1] = System.currentTimeMillis();
        });
        Observation o = new Observation(window[0], window[1], 0);
        Table t = JfrFiles.read(jfr, o).tables(o).get("jit");

        assertThat(t).as("jit table").isNotNull();
        int hugeRow = row(t, "Rules.score"), loopRow = row(t, "Rules.loop");
        System.out.printf("jit: %s samples, %s interpreted; score %s/%s; loop %s; code cache meta %s%n", t.meta().get("samples"),
                t.meta().get("interpreted"), t.number(hugeRow, "interpreted"), t.number(hugeRow, "samples"),
                loopRow < 0 ? "no interpreted sample" : t.number(loopRow, "interpreted") + "/" + t.number(loopRow, "samples"),
                t.meta());
        assertThat(t.number(hugeRow, "samples")).isGreaterThanOrEqualTo(20);
        assertThat(t.number(hugeRow, "interpreted")).isGreaterThanOrEqualTo(0.9 * t.number(hugeRow, "samples"));
        if (loopRow >= 0) assertThat(t.number(loopRow, "interpreted")).isLessThan(0.2 * t.number(loopRow, "samples"));
        // The code cache is read from its statistics: never full here, and its size known.
        assertThat(t.meta()).containsEntry("codeCacheFull", 0L);
        assertThat(((Number) t.meta().get("codeHeapBytes")).longValue()).isPositive();
    }

    private static int row(Table t, String suffix) {
        for (int i = 0; i < t.rows().size(); i++) if (t.text(i, "frame").endsWith(suffix)) return i;
        return -1;
    }

    /** A class {@code Rules} with a generated {@code score} of {@code rules} branches, and the same rules as a loop over data. */
    private static Class<?> compile(int rules) throws Exception {
        Random r = new Random(7);
        StringBuilder src = new StringBuilder("public final class Rules {\n  static final int[][] R = new int[][] {\n");
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < rules; i++) {
            int a = r.nextInt(10), b = r.nextInt(5), c = 1 + r.nextInt(50), d = 1 + r.nextInt(97);
            src.append("    {").append(a).append(',').append(b).append(',').append(c).append(',').append(d).append("},\n");
            body.append("    if (region == ").append(a).append(" && tier >= ").append(b).append(" && qty > ").append(c)
                    .append(") s += (sku % ").append(d).append(") ^ ").append(i).append(";\n");
        }
        src.append("  };\n  public static int score(int region, int tier, int qty, int sku) {\n    int s = 0;\n").append(body)
                .append("    return s;\n  }\n")
                .append("  public static int loop(int region, int tier, int qty, int sku) {\n    int s = 0;\n")
                .append("    for (int k = 0; k < R.length; k++) { int[] x = R[k];\n")
                .append("      if (region == x[0] && tier >= x[1] && qty > x[2]) s += (sku % x[3]) ^ k; }\n")
                .append("    return s;\n  }\n}\n");
        Path dir = Files.createTempDirectory("culprit-jit");
        Path file = dir.resolve("Rules.java");
        Files.writeString(file, src);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac.run(null, null, null, "-d", dir.toString(), file.toString())).as("javac").isZero();
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}).loadClass("Rules");
    }
}
