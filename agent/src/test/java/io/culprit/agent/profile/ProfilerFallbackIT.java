package io.culprit.agent.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A machine without perf events, made real: a target JVM whose perf_event_open fails with EACCES
 * (an LD_PRELOAD shim over libc's syscall(), as seccomp does in containers). async-profiler falls
 * back to ctimer and the command must say so, at start and at stop, and still profile.
 * Needs a C compiler to build the shim; skipped (not passed) without one.
 */
class ProfilerFallbackIT {
    private static final String SHIM = String.join("\n",
            "#define _GNU_SOURCE",
            "#include <dlfcn.h>",
            "#include <errno.h>",
            "#include <stdarg.h>",
            "#include <sys/syscall.h>",
            "long syscall(long n, ...) {",
            "  static long (*real)(long, ...);",
            "  if (n == SYS_perf_event_open) { errno = EACCES; return -1; }",
            "  if (!real) real = (long (*)(long, ...)) dlsym(RTLD_NEXT, \"syscall\");",
            "  va_list ap; va_start(ap, n);",
            "  long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long),",
            "       d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);",
            "  va_end(ap);",
            "  return real(n, a, b, c, d, e, f);",
            "}", "");

    @Test
    void withoutPerfEventsCpuFallsBackToCtimerAndSaysSo(@TempDir Path dir) throws Exception {
        Path src = Files.writeString(dir.resolve("noperf.c"), SHIM);
        Path shim = dir.resolve("libnoperf.so");
        Process cc;
        try {
            cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-o", shim.toString(), src.toString(), "-ldl")
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException noCompiler) {
            assumeTrue(false, "no C compiler to build the perf_event_open shim");
            return;
        }
        assertThat(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0).as(new String(cc.getInputStream().readAllBytes())).isTrue();

        Path collapsed = dir.resolve("cpu.collapsed");
        Path log = dir.resolve("target.log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ProfilerInChild.class.getName(), collapsed.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("LD_PRELOAD", shim.toString());
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("profiler started: event cpu, interval 10ms, engine ctimer (FALLBACK: perf events are not available");
        assertThat(out).contains("profiler stopped: event cpu, engine ctimer (FALLBACK");
        assertThat(Files.readString(collapsed)).as(out).contains(CpuBurner.class.getName() + ".burnCpu");
    }
}
