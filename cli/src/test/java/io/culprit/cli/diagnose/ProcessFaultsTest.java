package io.culprit.cli.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ProcessFaultsTest {

    @Test
    void majorFaultsAreTheTwelfthFieldCountedPastACommandNameWithSpacesAndParentheses() {
        String line = "4242 (my (odd) app) S 1 4242 4242 0 -1 4194560 51234 0 377 0 120 30 0 0 20 0 31 0 1234 0 0";
        assertThat(ProcessFaults.parseMajor(line)).isEqualTo(377);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aLiveProcessHasACountAndAnUnknownPidHasNone() throws IOException {
        long self = ProcessHandle.current().pid();
        long before = ProcessFaults.parseMajor(Files.readString(Path.of("/proc/self/stat")));
        // The count only grows: read later, it is at least what /proc said a moment before.
        assertThat(new ProcessFaults(self).major()).isGreaterThanOrEqualTo(before).isGreaterThanOrEqualTo(0);
        assertThat(new ProcessFaults(Long.MAX_VALUE).major()).isEqualTo(-1);
    }
}
