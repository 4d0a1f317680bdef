package io.culprit.agent.probe;

import io.culprit.agent.instrument.Listener;

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

    Hook(String className, String method, String descriptorPrefix) {
        this.className = className;
        this.method = method;
        this.descriptorPrefix = descriptorPrefix;
    }

    @Override
    public long enterArgs(int id, Object self, Object[] args) {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return className + "." + method + descriptorPrefix;
    }
}
