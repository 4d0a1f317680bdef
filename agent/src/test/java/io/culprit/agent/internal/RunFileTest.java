package io.culprit.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.channel.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunFileTest {
    @TempDir
    Path dir;

    @Test
    void writesOwnerOnlyJsonAtomicallyAndDeletesOnlyItsOwn() throws Exception {
        RunFile rf = new RunFile(dir, 4242);
        rf.write(5555, "ab".repeat(32), "1.0");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(rf.path()))).isEqualTo("rw-------");
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) Json.parse(new String(Files.readAllBytes(rf.path()), StandardCharsets.UTF_8));
        assertThat(m).containsEntry("pid", 4242L).containsEntry("port", 5555L)
                .containsEntry("token", "ab".repeat(32)).containsEntry("version", "1.0");
        try (var files = Files.list(dir)) {
            assertThat(files).as("no temp file left").hasSize(1);
        }
        rf.deleteIfOurs(6666);
        assertThat(rf.path()).as("another agent's port: kept").exists();
        rf.deleteIfOurs(5555);
        assertThat(rf.path()).doesNotExist();
    }

    @Test
    void aChosenRunDirIsCreatedOwnerOnlyAndRefusedIfOthersMayWrite() throws Exception {
        Path fresh = dir.resolve("a/b");
        assertThat(RunFile.resolveDir(fresh.toString())).isEqualTo(fresh);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh))).isEqualTo("rwx------");
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> RunFile.resolveDir(shared.toString()))
                .hasMessage("culprit agent: run dir " + shared + " is writable by other users");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(shared))).as("left untouched").isEqualTo("rwxrwxrwx");
    }

    @Test
    void prunesRunFilesOfDeadJvmsAndOnlyOldLogs() throws Exception {
        long dead = deadPid();
        long alive = ProcessHandle.current().pid();
        Path deadJson = Files.createFile(dir.resolve(dead + ".json"));
        Path deadNewLog = Files.createFile(dir.resolve(dead + ".log"));
        Path deadOldLog = Files.createFile(dir.resolve((dead + 1) + ".log"));
        Files.setLastModifiedTime(deadOldLog, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 8L * 24 * 3600 * 1000));
        Path liveJson = Files.createFile(dir.resolve(alive + ".json"));
        Path foreign = Files.createFile(dir.resolve("notes.json"));
        new RunFile(dir, 1).pruneStale();
        assertThat(deadJson).doesNotExist();
        assertThat(deadOldLog).doesNotExist();
        assertThat(deadNewLog).exists();
        assertThat(liveJson).exists();
        assertThat(foreign).exists();
    }

    /** A pid with no process, nor one just above it. */
    private static long deadPid() {
        for (long p = 4_000_000; ; p += 2) {
            if (ProcessHandle.of(p).isEmpty() && ProcessHandle.of(p + 1).isEmpty()) {
                return p;
            }
        }
    }
}
