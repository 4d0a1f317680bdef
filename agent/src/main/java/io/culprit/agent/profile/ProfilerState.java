package io.culprit.agent.profile;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where the running profile of this process lives: a fixed recording path and a small
 * properties file beside it (event, interval, engine expected at start). Kept on disk, not in
 * statics, because the profiler outlives the class loader that started it: a re-attached agent
 * must still be able to report and stop it.
 */
final class ProfilerState {
    final Path recording;
    private final Path props;

    ProfilerState(Path workDir) {
        long pid = ProcessHandle.current().pid();
        this.recording = workDir.resolve(pid + ".profiling.jfr");
        this.props = workDir.resolve(pid + ".profiling.properties");
    }

    void save(Properties p) throws IOException {
        try (Writer w = Files.newBufferedWriter(props)) {
            p.store(w, "culprit: the async-profiler session of this process");
        }
    }

    Properties load() throws IOException {
        Properties p = new Properties();
        if (Files.isRegularFile(props)) {
            try (Reader r = Files.newBufferedReader(props)) {
                p.load(r);
            }
        }
        return p;
    }

    void clear() throws IOException {
        Files.deleteIfExists(props);
        Files.deleteIfExists(recording);
    }
}
