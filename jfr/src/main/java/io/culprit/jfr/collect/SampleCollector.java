package io.culprit.jfr.collect;

/**
 * A collector that reads CPU samples, from JFR's sampler or async-profiler's: diagnose mode runs
 * async-profiler and records without JFR's sampler, and feeds the profiler's samples here.
 */
public interface SampleCollector {
    void sample(CpuSample s);
}
