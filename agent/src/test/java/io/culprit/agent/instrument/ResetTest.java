package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Shop;
import io.culprit.bootstrap.Bridge;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import org.junit.jupiter.api.Test;

/** After reset a woven class is byte-for-byte what it was, and the Bridge is a no-op again. */
class ResetTest {

    @Test
    void resetRestoresTheOriginalBytecode() throws Exception {
        byte[] original = currentBytes(Shop.class);
        byte[] pricing = currentBytes(io.culprit.agent.instrument.fixture.StandardPricing.class);
        FakeContext trace = new FakeContext().start(new TraceCommand(), Shop.class.getName(), "*", "--depth", "2");
        FakeContext watch = new FakeContext().start(new WatchCommand(), Shop.class.getName(), "parse");
        FakeContext monitor = new FakeContext().start(new MonitorCommand(), Shop.class.getName(), "checkout");
        try {
            assertThat(currentBytes(Shop.class)).isNotEqualTo(original);
            assertThat(Bridge.installed()).isTrue();
            FakeContext reset = new FakeContext();
            new ResetCommand().run(java.util.List.of(), reset);
            assertThat(reset.lines).containsExactly("Affect(class count: 2), 3 command(s) ended");
            trace.await();
            watch.await();
            monitor.await();
            assertThat(currentBytes(Shop.class)).isEqualTo(original);
            assertThat(currentBytes(io.culprit.agent.instrument.fixture.StandardPricing.class)).isEqualTo(pricing);
            assertThat(Bridge.installed()).isFalse();
            assertThat(new Shop().quantity("7")).isEqualTo(7);
        } finally {
            Instrumenter.resetAll();
        }
    }

    /** The class file as the JVM would hand it to a retransforming agent right now. */
    static byte[] currentBytes(Class<?> type) throws Exception {
        byte[][] seen = new byte[1][];
        ClassFileTransformer capture = new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                                    ProtectionDomain pd, byte[] bytes) {
                if (redefined == type) {
                    seen[0] = bytes.clone();
                }
                return null;
            }
        };
        FakeContext.INST.addTransformer(capture, true);
        try {
            FakeContext.INST.retransformClasses(type);
        } finally {
            FakeContext.INST.removeTransformer(capture);
        }
        return seen[0];
    }
}
