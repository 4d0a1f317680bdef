package io.culprit.report.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.report.Report.FlameNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollapsedTest {
    @TempDir Path tmp;

    @Test
    void foldsStacksIntoInclusiveCountsWidestFirst() throws Exception {
        Path f = Files.writeString(tmp.resolve("cpu.collapsed"), "a;b;c 5\na;b 2\na;d 7\nx 1\n");
        FlameNode root = Collapsed.toFlame(Collapsed.parse(f));

        assertThat(root.value()).isEqualTo(15);
        FlameNode a = root.children().get(0);
        assertThat(a.name()).isEqualTo("a");
        assertThat(a.value()).isEqualTo(14);
        assertThat(a.children()).extracting(FlameNode::name).containsExactly("b", "d");   // 7 each: b first seen
        assertThat(a.children().get(0).children().get(0).value()).isEqualTo(5);
        assertThat(root.before()).isNull();
    }

    @Test
    void dropsFramesNarrowerThanAPixel() throws Exception {
        Path f = Files.writeString(tmp.resolve("cpu.collapsed"), "hot 100000\ncold 1\n");
        FlameNode root = Collapsed.toFlame(Collapsed.parse(f));

        assertThat(root.children()).extracting(FlameNode::name).containsExactly("hot");
        assertThat(root.value()).isEqualTo(100001);   // the total still counts what was dropped
    }

    @Test
    void differentialKeepsWhatTheFixRemovedAndScalesTheBaseline() throws Exception {
        Path before = Files.writeString(tmp.resolve("b.collapsed"), "req;build 60\nreq;query 40\n");
        Path after = Files.writeString(tmp.resolve("a.collapsed"), "req;query 200\n");
        FlameNode d = Collapsed.diff(Collapsed.parse(before), Collapsed.parse(after));

        FlameNode req = d.children().get(0);
        assertThat(req.value()).isEqualTo(200);
        assertThat(req.before()).isEqualTo(200.0);                      // 100 samples scaled to 200
        FlameNode query = req.children().get(0), build = req.children().get(1);
        assertThat(query.name()).isEqualTo("query");
        assertThat(query.before()).isEqualTo(80.0);                     // 40 % before, 100 % after: grew
        assertThat(build.name()).isEqualTo("build");
        assertThat(build.value()).isZero();
        assertThat(build.before()).isEqualTo(120.0);                    // gone after the fix
    }

    @Test
    void rejectsALineWithoutACountNamingFileAndLine() throws Exception {
        Path f = Files.writeString(tmp.resolve("bad.collapsed"), "a;b 3\nnot a stack\n");
        assertThatThrownBy(() -> Collapsed.parse(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.collapsed:2").hasMessageContaining("not a collapsed stack");
    }
}
