package io.culprit.jfr;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** Evidence from a recording the user already has: no live JVM needed. */
public final class JfrFiles {
    private JfrFiles() { }

    public static JfrEvidence read(Path recording) throws IOException {
        if (!Files.isRegularFile(recording)) throw new IOException("no such recording: " + recording);
        JfrEvidence ev = new JfrEvidence();
        try (RecordingFile f = new RecordingFile(recording)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                ev.accept(e);
            }
        } catch (IOException e) {
            throw new IOException("not a readable JFR recording: " + recording + " (" + e.getMessage() + ")", e);
        }
        return ev;
    }
}
