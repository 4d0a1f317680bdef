package io.culprit.bench.jmh;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** What a monitored call is made of, to explain InstrumentedCallBenchmark's figures. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class BuildingBlocksBenchmark {

    private final Recorder recorder = new Recorder(3_600_000_000_000L, 2);
    private final LongAdder adder = new LongAdder();
    private long v = 1;

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public void recorderRecordValue() {
        recorder.recordValue(v++ & 0xFFFFF);
    }

    @Benchmark
    public void longAdderIncrement() {
        adder.increment();
    }
}
