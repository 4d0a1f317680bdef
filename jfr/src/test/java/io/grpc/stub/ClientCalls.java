package io.grpc.stub;

import java.util.concurrent.locks.LockSupport;

/**
 * Stand-in for gRPC's class of the same name, for the collector's tests: a blocking call parks on
 * its {@code ThreadlessExecutor} until the transport's thread has the reply, as gRPC's does.
 */
public final class ClientCalls {
    private ClientCalls() { }

    public static final class ThreadlessExecutor {
        private volatile boolean done;
        private volatile Thread waiter;

        /** Parks the caller until {@link #deliver} (gRPC's waitAndDrain). */
        public void waitAndDrain() {
            waiter = Thread.currentThread();
            while (!done) LockSupport.park(this);
        }

        /** Whether a caller waits for the reply. */
        public boolean awaited() {
            return waiter != null;
        }

        /** The transport's thread hands over the reply. */
        public void deliver() {
            done = true;
            Thread w = waiter;
            if (w != null) LockSupport.unpark(w);
        }
    }
}
