package io.culprit.agent.profile;

import java.util.List;

/** Child-JVM entry for {@link ProfilerFallbackIT}: profile a CPU burner, print the command output. */
public final class ProfilerInChild {
    public static void main(String[] args) throws Exception {
        ProfilerCommand cmd = new ProfilerCommand();
        TestContext start = new TestContext();
        cmd.run(List.of("start", "--event", "cpu"), start);
        System.out.println(start.text());
        try (CpuBurner b = new CpuBurner()) {
            Thread.sleep(1500); // the profiling window
        }
        TestContext stop = new TestContext();
        cmd.run(List.of("stop", "--format", "collapsed", "--file", args[0]), stop);
        System.out.println(stop.text());
    }
}
