package io.culprit.agent.probe;

import io.culprit.bootstrap.Bridge;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;

/**
 * Woven code calls {@link Bridge}, which lives in the boot loader's unnamed module. Classes of a
 * named JDK module (java.net.http's HttpClientImpl, java.base's ThreadPoolExecutor) do not read
 * that module, so their woven code would fail to link (IllegalAccessError, swallowed by nobody).
 * The agent adds the one read edge it needs, as Byte Buddy's {@code assureReadEdgeTo} does; the
 * edge outlives a detach, and grants nothing but the ability to call the Bridge's no-op.
 */
final class Modules {

    private Modules() { }

    /**
     * True when woven code in {@code woven} would link to the same Bridge the dispatcher is
     * installed in. In a target the Bridge is on the boot path, visible to every class; in an
     * in-process test it is on the class path, invisible to JDK classes, whose woven code would
     * then throw NoClassDefFoundError into every caller.
     */
    static boolean seesBridge(Class<?> woven) {
        try {
            return Class.forName(Bridge.class.getName(), false, woven.getClassLoader()) == Bridge.class;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    static void letReadBridge(Instrumentation inst, Class<?> woven) {
        Module from = woven.getModule();
        Module bridge = Bridge.class.getModule();
        if (!from.isNamed() || from.canRead(bridge) || !inst.isModifiableModule(from)) return;
        inst.redefineModule(from, Set.of(bridge), Map.of(), Map.of(), Set.of(), Map.of());
    }
}
