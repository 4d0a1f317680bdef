package io.culprit.agent.jfr;

import java.util.ServiceLoader;

/** Target JVM for {@link ClassLoadingIT}: seed 3's per-call probing, ~100 times a second. */
public final class LookupTarget {
    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        long end = System.currentTimeMillis() + 120_000; // never outlives a broken test
        while (System.currentTimeMillis() < end) {
            buildConverters();
            Thread.sleep(10);
        }
    }

    /** What a converter factory does on every call when it is rebuilt per request. */
    static void buildConverters() {
        for (Object d : ServiceLoader.load(java.sql.Driver.class)) {
            // the scan of META-INF/services is the cost
        }
        LookupTarget.class.getClassLoader().getResource("META-INF/spring.factories");
        try {
            Class.forName("com.fasterxml.jackson.datatype.joda.JodaModule");
        } catch (ClassNotFoundException optionalModuleAbsent) {
            // swallowed, as Jackson2ObjectMapperBuilder does
        }
    }
}
