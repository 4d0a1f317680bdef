package io.culprit.agent.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pruning old agent extractions in a temporary home: what is deleted, and everything that must not be. */
class StaleLibsTest {
    static final long NOW = System.currentTimeMillis();
    static final long TWO_HOURS_AGO = NOW - 2 * 3600_000L;
    static final long DEAD_PID = 999_999_999L; // above any pid_max (2^22)

    @TempDir Path home;
    Path lib;
    Path run;

    @BeforeEach
    void dirs() throws IOException {
        lib = Files.createDirectories(home.resolve(".culprit/lib"));
        run = Files.createDirectories(home.resolve(".culprit/run"));
    }

    @Test
    void deletesOnlyOldExtractionsNoLiveAgentUses() throws IOException {
        Path current = extraction("0.1.0-SNAPSHOT-cccc", TWO_HOURS_AGO);
        Path unused = extraction("0.1.0-SNAPSHOT-aaaa", TWO_HOURS_AGO);
        Path recent = extraction("0.1.0-SNAPSHOT-bbbb", NOW - 10 * 60_000L);
        Path liveVersion = extraction("0.2.0-dddd", TWO_HOURS_AGO);
        Path deadVersion = extraction("0.3.0-eeee", TWO_HOURS_AGO);
        runFile(ProcessHandle.current().pid(), "0.2.0");
        runFile(DEAD_PID, "0.3.0");
        Path profiler = Files.createDirectories(lib.resolve("async-profiler-1a2b3c"));
        Files.write(profiler.resolve("libasyncProfiler.so"), new byte[16]);
        Path notOurs = Files.createDirectories(lib.resolve("notes-1"));
        Files.setLastModifiedTime(profiler, FileTime.fromMillis(TWO_HOURS_AGO));
        Files.setLastModifiedTime(notOurs, FileTime.fromMillis(TWO_HOURS_AGO));

        List<Path> deleted = StaleLibs.prune(lib, "0.1.0-SNAPSHOT-cccc", List.of(run), NOW);

        assertThat(deleted).containsExactlyInAnyOrder(unused, deadVersion);
        assertThat(unused).doesNotExist();
        assertThat(deadVersion).doesNotExist();
        assertThat(List.of(current, recent, liveVersion, profiler, notOurs)).allMatch(Files::isDirectory);
        assertThat(current.resolve("core.jar")).exists();
    }

    @Test
    void neverFollowsLinksOutOfTheLibDirectory(@TempDir Path elsewhere) throws IOException {
        Path outsideDir = Files.createDirectories(elsewhere.resolve("precious"));
        Files.write(outsideDir.resolve("core.jar"), new byte[16]);
        Path outsideFile = Files.write(elsewhere.resolve("keep.txt"), new byte[] {1});
        // A linked "extraction" is not a candidate; links inside a real one are removed as links.
        Path linked = Files.createSymbolicLink(lib.resolve("0.1.0-ffff"), outsideDir);
        Path old = extraction("0.1.0-aaaa", TWO_HOURS_AGO);
        Files.createSymbolicLink(old.resolve("link-to-file"), outsideFile);
        Files.createSymbolicLink(old.resolve("link-to-dir"), elsewhere);
        Files.setLastModifiedTime(old, FileTime.fromMillis(TWO_HOURS_AGO));
        Files.setLastModifiedTime(outsideDir, FileTime.fromMillis(TWO_HOURS_AGO));

        List<Path> deleted = StaleLibs.prune(lib, "0.1.0-cccc", List.of(run), NOW);

        assertThat(deleted).containsExactly(old);
        assertThat(Files.isSymbolicLink(linked)).isTrue();
        assertThat(outsideDir.resolve("core.jar")).exists();
        assertThat(outsideFile).exists();
        assertThat(elsewhere.resolve("precious")).isDirectory();
    }

    @Test
    void keepsEverythingWhenItCannotTellWhatIsInUse() throws IOException {
        Path old = extraction("0.1.0-aaaa", TWO_HOURS_AGO);
        Path notADirectory = Files.write(home.resolve("run-file-not-dir"), new byte[0]);
        assertThat(StaleLibs.prune(lib, "0.1.0-cccc", List.of(run, notADirectory), NOW)).isEmpty();

        // A live agent's run file without a version: no guessing either.
        Files.writeString(run.resolve(ProcessHandle.current().pid() + ".json"), "{\"pid\":1,\"port\":2}");
        assertThat(StaleLibs.prune(lib, "0.1.0-cccc", List.of(run), NOW)).isEmpty();
        assertThat(old).isDirectory();
    }

    @Test
    void aLaunchFromAnOldExtractionMarksItUsed() throws IOException {
        Path old = extraction("0.1.0-aaaa", TWO_HOURS_AGO);
        StaleLibs.markUsed(old, NOW);
        assertThat(Files.getLastModifiedTime(old, LinkOption.NOFOLLOW_LINKS).toMillis()).isEqualTo(NOW);
        assertThat(StaleLibs.prune(lib, "0.1.0-cccc", List.of(run), NOW)).isEmpty();
        assertThat(StaleLibs.prune(lib, "0.1.0-cccc", List.of(run), NOW + StaleLibs.KEEP_RECENT_MS + 1)).containsExactly(old);
    }

    private Path extraction(String key, long mtime) throws IOException {
        Path d = Files.createDirectories(lib.resolve(key));
        Files.write(d.resolve("core.jar"), new byte[64]);
        Files.write(d.resolve("bootstrap.jar"), new byte[32]);
        Files.setLastModifiedTime(d, FileTime.fromMillis(mtime));
        return d;
    }

    private void runFile(long pid, String version) throws IOException {
        // The shape RunFile writes: compact JSON.
        Files.writeString(run.resolve(pid + ".json"),
                "{\"pid\":" + pid + ",\"port\":40000,\"token\":\"t\",\"version\":\"" + version + "\"}\n");
    }
}
