package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import io.culprit.agent.instrument.Instrumenter;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A real commons-pool2 pool (the one JedisPool extends) with every object lent out and threads
 * waiting: the sampler finds it through its MBean, with no weaving, and counts the full windows,
 * the waiters and the waited borrows.
 */
class ObjectPoolsTest {

    static final class Widgets extends BasePooledObjectFactory<StringBuilder> {
        @Override public StringBuilder create() { return new StringBuilder(); }
        @Override public PooledObject<StringBuilder> wrap(StringBuilder b) { return new DefaultPooledObject<>(b); }
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    /**
     * A pool with no MBean (DBCP2's BasicDataSource registers its pool's only when given a
     * jmxName): found at its first borrow through the woven {@code borrowObject}, read by its getters.
     */
    @Test
    void aPoolWithoutAnMBeanIsFoundAtItsFirstBorrow() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        GenericObjectPoolConfig<StringBuilder> config = new GenericObjectPoolConfig<>();
        config.setJmxEnabled(false);
        config.setMaxTotal(3);
        GenericObjectPool<StringBuilder> pool = new GenericObjectPool<>(new Widgets(), config);
        try {
            pool.returnObject(pool.borrowObject());
            String name = "GenericObjectPool@" + Integer.toHexString(System.identityHashCode(pool));
            long end = System.nanoTime() + 10_000_000_000L;
            while (!ProbeContext.run(new PoolsCommand(), false).text().contains(name)) {
                if (System.nanoTime() > end) throw new AssertionError("no " + name + " in\n" + ProbeContext.run(new PoolsCommand(), false).text());
                Thread.sleep(50);
            }
            assertThat(ProbeContext.run(new PoolsCommand(), false).text())
                    .containsPattern("pool2 " + name + " \\S+\\s+0\\s+1\\s+0\\s+3"); // active, idle, waiters, maxTotal
            assertThat(p.woven).anyMatch(w -> w.contains("GenericObjectPool.borrowObject"));
        } finally {
            pool.close();
        }
    }

    @Test
    void aFullPoolWithWaitersIsReadFromItsMBean() throws Exception {
        GenericObjectPool<StringBuilder> pool = new GenericObjectPool<>(new Widgets());
        pool.setMaxTotal(2);
        ObjectPools sampler = new ObjectPools();
        List<Thread> waiters = new ArrayList<>();
        try {
            sampler.sample(); // the baseline
            StringBuilder a = pool.borrowObject(), b = pool.borrowObject();
            CountDownLatch started = new CountDownLatch(3);
            for (int i = 0; i < 3; i++) {
                Thread t = new Thread(() -> {
                    started.countDown();
                    try {
                        pool.returnObject(pool.borrowObject());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                t.start();
                waiters.add(t);
            }
            started.await();
            while (pool.getNumWaiters() < 3) Thread.onSpinWait();
            Thread.sleep(50); // the waiters' borrows now wait at least this long
            sampler.sample();
            pool.returnObject(a);
            pool.returnObject(b);
            for (Thread t : waiters) t.join(5_000);
            sampler.sample();

            List<Map<String, Object>> rows = sampler.rows();
            Map<String, Object> row = rows.stream().filter(r -> String.valueOf(r.get("factory")).startsWith(Widgets.class.getName() + "<"))
                    .findFirst().orElseThrow(() -> new AssertionError("pool not found: " + rows));
            assertThat(row).containsEntry("maxTotal", 2.0).containsEntry("windows", 2).containsEntry("fullWindows", 1);
            assertThat((double) row.get("waitersMax")).isEqualTo(3);
            assertThat((double) row.get("waitersMean")).isEqualTo(1.5);
            assertThat((double) row.get("borrowed")).isEqualTo(5); // the two lent out, then the three waiters
            assertThat((double) row.get("borrowWaitMsTotal")).isGreaterThanOrEqualTo(50);
            assertThat((double) row.get("maxWaitMs")).isEqualTo(-1); // commons-pool2's default: wait forever

            List<Map<String, Object>> live = new ArrayList<>();
            sampler.describe(live);
            assertThat(live).anySatisfy(r -> assertThat(r.get("pool").toString()).endsWith("ObjectPoolsTest$Widgets"));
        } finally {
            pool.close();
        }
        sampler.sample(); // a closed pool unregisters its MBean: its figures stay, the live view drops it
        assertThat(sampler.rows()).anyMatch(r -> String.valueOf(r.get("factory")).startsWith(Widgets.class.getName() + "<") && r.get("windows").equals(2));
        List<Map<String, Object>> live = new ArrayList<>();
        sampler.describe(live);
        assertThat(live).noneMatch(r -> r.get("pool").toString().endsWith("ObjectPoolsTest$Widgets"));
    }
}
