package io.culprit.agent.probe;

import io.culprit.agent.instrument.Listener;
import io.culprit.agent.instrument.TargetResolver;

/**
 * One framework method a probe weaves, found by exact class name, method name and a descriptor
 * prefix (overloads differ in what they mean: HikariPool.getConnection() delegates to
 * getConnection(long), so weaving both would count every acquire twice). Subclasses are the
 * {@link Listener} the engine's argument-passing advice calls; they must never throw.
 */
abstract class Hook extends Listener {

    final String className;
    final String method;
    final String descriptorPrefix;
    /** A JDK class (java.net.http's client): woven only by name, never by a pattern. */
    final boolean jdk;

    Hook(String className, String method, String descriptorPrefix) {
        this.className = className;
        this.method = method;
        this.descriptorPrefix = descriptorPrefix;
        this.jdk = TargetResolver.isJdk(className);
    }

    @Override
    public long enterArgs(int id, Object self, Object[] args) {
        return timed() ? System.nanoTime() : 0L;
    }

    /** False for hooks that only read arguments or results at exit: a clock read is ~25 ns here. */
    boolean timed() {
        return true;
    }

    @Override
    public String toString() {
        return className + "." + method + descriptorPrefix;
    }
}
