package io.culprit.bootstrap;

import java.lang.invoke.CallSite;
import java.lang.invoke.MethodType;

/**
 * What woven code reaches through {@link Bridge}. Lives on the bootstrap class path so that
 * classes of every loader can link against it; the agent's dispatcher implements it from its
 * isolated loader. Ids are handed out by the agent when it weaves a method or a call site.
 *
 * <p>The lean pair ({@link #enter}/{@link #exit}) carries only an id and a timestamp, so woven
 * code allocates nothing; the {@code *Args} pair exists for listeners that read arguments
 * (watch), and is only woven when such a listener asked for it; the {@code probe*} pair passes
 * the few plain values a framework probe reads.
 */
public interface Spy {

    /** A woven method starts. Returns the timestamp the matching {@link #exit} gets back. */
    long enter(int id);

    /** A woven method ends; {@code thrown} is null on a normal return. */
    void exit(int id, long start, Throwable thrown);

    long enterArgs(int id, Object self, Object[] args);

    void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown);

    /**
     * A framework probe's method starts. Woven only for hooks that work at entry; the advice
     * passes what the hook declared it reads (the receiver, the first argument) and null in place
     * of the rest: no array, no boxing.
     */
    long probeEnter(int id, Object self, Object arg0);

    /** A framework probe's method ends; {@code start} is 0 when no entry was woven, unread values are null. */
    void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown);

    /** Just before a woven call site invokes its callee. */
    void beforeCall(int site);

    /** Just after a woven call site's callee returned normally. */
    void afterCall(int site);

    /**
     * The call site of one {@code invokedynamic} in woven code ({@link Bridge#link}): {@code name}
     * is the {@link Spy} method it stands for, {@code id} the woven method's. Null: not linked here.
     */
    default CallSite link(String name, MethodType type, int id) {
        return null;
    }
}
