package io.culprit.agent.instrument.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

/** Where trace may let two timing points share one clock read, and where it must not. */
class CallSiteVisitorTest {

    @SuppressWarnings("unused")
    static class Calls {
        private int field = 3;

        int a(int x) {
            return x + 1;
        }

        int b(int x) {
            return x * 2;
        }

        int adjacent(int x) {
            int y = a(x);
            return b(y) + 1;
        }

        int branchy(int x) {
            int y = a(x);
            if (y > 3) {
                y = b(y);
            }
            return y;
        }

        int arrayBetween(int[] values, int x) {
            int y = a(x);
            y += values[0];
            return b(y);
        }

        int fieldFirst() {
            return b(a(field));
        }

        int division(int x) {
            int y = a(x) / x;
            return b(y);
        }
    }

    /** Hands out site ids named after the callee and records what the visitor shares. */
    static final class Recorder implements Plan.SiteRegistrar, CallSiteVisitor.Adjacency {
        final boolean roots;
        final Map<Integer, String> names = new LinkedHashMap<>();
        final List<String> endShared = new ArrayList<>();
        final List<String> startShared = new ArrayList<>();

        Recorder(boolean roots) {
            this.roots = roots;
        }

        @Override
        public int site(MethodTarget caller, int index, String owner, String name, String descriptor, int line) {
            int id = names.size() + 1;
            names.put(id, name);
            return id;
        }

        @Override
        public boolean isRoot(MethodTarget method) {
            return roots;
        }

        @Override
        public void startShared(MethodTarget root) {
            startShared.add(root.method.name);
        }

        @Override
        public void endShared(int site) {
            endShared.add(names.get(site));
        }
    }

    @Test
    void aRootSharesReadsAcrossStraightLineCodeOnly() {
        assertThat(weave("adjacent", true).endShared).containsExactly("a", "b");   // a→b, b→exit
        assertThat(weave("adjacent", true).startShared).containsExactly("adjacent");
        assertThat(weave("branchy", true).endShared).containsExactly("b");          // the if jumps after a
        assertThat(weave("arrayBetween", true).endShared).containsExactly("b");     // values[0] may throw
        assertThat(weave("division", true).endShared).containsExactly("b");         // / x may throw
        Recorder fieldFirst = weave("fieldFirst", true);
        assertThat(fieldFirst.startShared).isEmpty();                                // getfield before the first call
        assertThat(fieldFirst.endShared).containsExactly("a", "b");
    }

    @Test
    void aCalleeNeverLeavesItsLastCallToWhateverRunsAfterItReturns() {
        Recorder r = weave("adjacent", false);
        assertThat(r.endShared).containsExactly("a");   // b→return: the caller may be unwoven code
        assertThat(r.startShared).isEmpty();
    }

    private static Recorder weave(String method, boolean roots) {
        Recorder recorder = new Recorder(roots);
        ClassBytes.Method m = ClassBytes.methods(Calls.class).stream().filter(x -> x.name.equals(method)).findFirst().orElseThrow();
        MethodTarget target = new MethodTarget(Calls.class, m);
        new ClassReader(ClassFileLocator.ForClassLoader.read(Calls.class)).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                return name.equals(method) ? new CallSiteVisitor(null, target, recorder) : null;
            }
        }, 0);
        return recorder;
    }
}
