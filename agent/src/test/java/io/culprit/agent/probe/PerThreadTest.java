package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Per-thread state by thread id: one state per thread, kept apart when two live threads share a slot. */
class PerThreadTest {

    @Test
    void eachThreadKeepsItsOwnState() throws Exception {
        PerThread states = new PerThread(Object::new);
        Object mine = states.get();
        assertThat(states.get()).isSameAs(mine);
        AtomicReference<Object> other = new AtomicReference<>();
        Thread t = new Thread(() -> other.set(states.get()));
        t.start();
        t.join();
        assertThat(other.get()).isNotNull().isNotSameAs(mine);
        assertThat(states.get()).isSameAs(mine);
    }

    @Test
    void aThreadWhoseSlotALiveThreadHoldsGetsAStateOfItsOwn() throws Exception {
        PerThread states = new PerThread(Object::new);
        AtomicReference<Object> first = new AtomicReference<>(), firstAfter = new AtomicReference<>();
        CountDownLatch held = new CountDownLatch(1), done = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            first.set(states.get());
            held.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            firstAfter.set(states.get());
        });
        holder.start();
        held.await();
        AtomicReference<Object> second = new AtomicReference<>(), secondAgain = new AtomicReference<>();
        Runnable body = () -> {
            second.set(states.get());
            secondAgain.set(states.get());
        };
        // Ids are handed out in order: some thread made after the holder comes round to its slot.
        Thread collider = new Thread(body);
        while ((collider.getId() - holder.getId()) % PerThread.SIZE != 0) collider = new Thread(body);
        collider.start();
        collider.join();
        done.countDown();
        holder.join();
        assertThat(second.get()).isNotNull().isNotSameAs(first.get());
        assertThat(secondAgain.get()).as("the overflowing thread keeps its state").isSameAs(second.get());
        assertThat(firstAfter.get()).as("the holder keeps its slot").isSameAs(first.get());
    }
}
