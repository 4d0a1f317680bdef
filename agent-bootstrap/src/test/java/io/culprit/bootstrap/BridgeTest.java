package io.culprit.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BridgeTest {

    @AfterEach
    void reset() {
        Bridge.reset();
    }

    @Test
    void isANoOpUntilInstalled() {
        assertThat(Bridge.installed()).isFalse();
        assertThat(Bridge.enter(1)).isZero();
        Bridge.exit(1, 0L, null);
    }

    @Test
    void delegatesOnceInstalledAndStopsAfterReset() {
        long[] seen = new long[2];
        Bridge.install(new ThrowingSpy() {
            @Override public long enter(int id) { seen[0] = id; return 42L; }
            @Override public void exit(int id, long start, Throwable thrown) { seen[1] = start; }
        });
        assertThat(Bridge.enter(7)).isEqualTo(42L);
        Bridge.exit(7, 42L, null);
        assertThat(seen).containsExactly(7L, 42L);
        Bridge.reset();
        assertThat(Bridge.enter(8)).isZero();
        assertThat(seen[0]).isEqualTo(7L);
    }

    @Test
    void swallowsTheSpysThrowables() {
        Bridge.install(new ThrowingSpy());
        assertThat(Bridge.enter(1)).isZero();
        assertThat(Bridge.enterArgs(1, null, new Object[0])).isZero();
        Bridge.exit(1, 0L, null);
        Bridge.exitArgs(1, 0L, null, null, null, null);
        assertThat(Bridge.probeEnter(1, null, null)).isZero();
        Bridge.probeExit(1, 0L, null, null, null, null, null);
        Bridge.beforeCall(1);
        Bridge.afterCall(1);
    }

    @Test
    void probeEntryPointsPassTheirValuesAndAreNoOpsAfterReset() {
        Object[] seen = new Object[6];
        Bridge.install(new ThrowingSpy() {
            @Override public long probeEnter(int id, Object self, Object arg0) { seen[0] = self; seen[1] = arg0; return 9L; }
            @Override public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object r, Throwable t) {
                seen[2] = start;
                seen[3] = arg1;
                seen[4] = r;
                seen[5] = t;
            }
        });
        Throwable thrown = new IllegalStateException("from the method");
        assertThat(Bridge.probeEnter(3, "self", "a0")).isEqualTo(9L);
        Bridge.probeExit(3, 9L, "self", "a0", "a1", "ret", thrown);
        assertThat(seen).containsExactly("self", "a0", 9L, "a1", "ret", thrown);
        Bridge.reset();
        assertThat(Bridge.probeEnter(3, "other", null)).isZero();
        Bridge.probeExit(3, 1L, null, null, "changed", null, null);
        assertThat(seen[0]).isEqualTo("self");
        assertThat(seen[3]).isEqualTo("a1");
    }

    /** A spy that fails everywhere: nothing may reach the caller. */
    static class ThrowingSpy implements Spy {
        @Override public long enter(int id) { throw new IllegalStateException("enter"); }
        @Override public void exit(int id, long start, Throwable thrown) { throw new StackOverflowError(); }
        @Override public long enterArgs(int id, Object self, Object[] args) { throw new IllegalStateException(); }
        @Override public void exitArgs(int id, long start, Object self, Object[] args, Object r, Throwable t) { throw new IllegalStateException(); }
        @Override public long probeEnter(int id, Object self, Object arg0) { throw new IllegalStateException(); }
        @Override public void probeExit(int id, long start, Object self, Object a0, Object a1, Object r, Throwable t) { throw new LinkageError(); }
        @Override public void beforeCall(int site) { throw new IllegalStateException(); }
        @Override public void afterCall(int site) { throw new IllegalStateException(); }
        @Override public CallSite link(String name, MethodType type, int id) { throw new IllegalStateException(); }
    }

    private static final MethodType ENTER = MethodType.methodType(long.class, int.class, Object.class, Object.class);

    @Test
    void linkingWithoutAnAgentOrWithAFailingOneGivesANoOpSite() throws Throwable {
        CallSite none = Bridge.link(MethodHandles.lookup(), "probeEnter", ENTER, 1);
        assertThat(none).isInstanceOf(ConstantCallSite.class);
        assertThat((long) none.dynamicInvoker().invokeExact(1, (Object) "self", (Object) null)).isZero();
        Bridge.install(new ThrowingSpy());
        CallSite failed = Bridge.link(MethodHandles.lookup(), "probeEnter", ENTER, 1);
        assertThat((long) failed.dynamicInvoker().invokeExact(1, (Object) "self", (Object) null)).isZero();
    }

    @Test
    void linkingWithAnAgentGivesItsSite() throws Throwable {
        MutableCallSite mine = new MutableCallSite(MethodHandles.constant(long.class, 5L));
        Bridge.install(new ThrowingSpy() {
            @Override public CallSite link(String name, MethodType type, int id) { return id == 4 ? mine : null; }
        });
        assertThat(Bridge.link(MethodHandles.lookup(), "probeEnter", ENTER, 4)).isSameAs(mine);
        assertThat(Bridge.link(MethodHandles.lookup(), "probeEnter", ENTER, 5)).isInstanceOf(ConstantCallSite.class);
    }
}
