package io.culprit.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.report.internal.Collapsed;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The page's flame layout: a differential graph lays frames out on both profiles, so removed paths keep their width. */
class FlameDataTest {

    @Test
    void removedPathIsAsWideAsItWasBeforeAndParentsHoldTheirChildren() {
        // Before: build 60 %, query 40 %. After: query only. Scaled to the after total (200), build was 120 and query 80.
        Report.FlameNode diff = Collapsed.diff(Collapsed.parse("req;build 60\nreq;query 40\n", "before"),
                Collapsed.parse("req;query 200\n", "after"));
        Map<String, Object> root = root(diff);
        Map<String, Object> req = child(root, "req"), query = child(req, "query"), build = child(req, "build");

        assertThat(build).containsEntry("v", 0L).containsEntry("b", 120.0).containsEntry("w", 120.0);
        assertThat(query).containsEntry("v", 200L).containsEntry("b", 80.0).doesNotContainKey("w");   // grew: after's width
        // req had 200 samples on both sides, but its children side by side need 200 + 120.
        assertThat(req).containsEntry("w", 320.0);
        assertThat(root).containsEntry("v", 200L).containsEntry("w", 320.0);
        // Laid out in the page, build then takes 120 / 320 of the width, not 0.
        assertThat(width(build) / width(root)).isEqualTo(0.375);
    }

    @Test
    void aStackThousandsOfFramesDeepStillMakesAPage() {
        // A recursion run until StackOverflowError: its samples hold thousands of frames.
        StringBuilder deep = new StringBuilder("Thread.run;App.handle");
        for (int i = 0; i < 6000; i++) deep.append(";App.sumRec");
        deep.append(";StackOverflowError throw_exception 90\nThread.run;App.other 10\n");
        Report.FlameNode tree = Collapsed.toFlame(Collapsed.parse(deep.toString(), "cpu"));

        String json = io.culprit.report.internal.Html.scriptJson(FlameData.compact(List.of(new Report.Flame("cpu", "cpu.collapsed", 100, tree))));
        assertThat(json).contains("App.handle", "[deep stack: frames elided]", "StackOverflowError throw_exception");
    }

    @Test
    void shrunkFrameKeepsItsBeforeWidthAndAPlainGraphHasNoLayoutKey() {
        Report.FlameNode diff = Collapsed.diff(Collapsed.parse("a 90\nb 10\n", "before"), Collapsed.parse("a 50\nb 50\n", "after"));
        Map<String, Object> root = root(diff);
        assertThat(child(root, "a")).containsEntry("v", 50L).containsEntry("b", 90.0).containsEntry("w", 90.0);
        assertThat(child(root, "b")).containsEntry("v", 50L).doesNotContainKey("w");
        assertThat(width(root)).isEqualTo(140.0);

        Map<String, Object> plain = root(Collapsed.toFlame(Collapsed.parse("a 90\nb 10\n", "cpu")));
        assertThat(plain).doesNotContainKeys("w", "b");
        assertThat(child(plain, "a")).doesNotContainKeys("w", "b");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> root(Report.FlameNode n) {
        Map<String, Object> flame = FlameData.compact(List.of(new Report.Flame("cpu-diff", "x", n.value(), n))).get(0);
        return (Map<String, Object>) flame.get("root");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> child(Map<String, Object> node, String name) {
        return ((List<Map<String, Object>>) node.get("c")).stream().filter(c -> c.get("n").equals(name)).findFirst().orElseThrow();
    }

    private static double width(Map<String, Object> n) {
        return ((Number) n.getOrDefault("w", n.get("v"))).doubleValue();
    }
}
