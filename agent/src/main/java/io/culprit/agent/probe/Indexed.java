package io.culprit.agent.probe;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * What records in an {@link EventLog} point at (a route, a call target), by index: a record
 * holds longs only, and a fold turns its index back into the object with one array read.
 * Copied on write: items are added rarely (a new route), read on every fold.
 */
final class Indexed<T> {

    private volatile Object[] items = new Object[0];

    /** Adds the item {@code make} builds for the next index, and returns it. */
    synchronized T add(IntFunction<T> make) {
        Object[] table = items;
        T item = make.apply(table.length);
        Object[] grown = Arrays.copyOf(table, table.length + 1);
        grown[table.length] = item;
        items = grown;
        return item;
    }

    /** The items now, for a fold to index into. */
    Object[] snapshot() {
        return items;
    }
}
