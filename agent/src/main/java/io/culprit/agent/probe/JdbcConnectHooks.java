package io.culprit.agent.probe;

import java.util.List;

/**
 * Physical database connections opened through {@code java.sql.DriverManager}: legacy code's
 * {@code DriverManager.getConnection(url)}, and Spring's {@code DriverManagerDataSource}, which
 * opens one per {@code getConnection()} (each a TCP connect, authentication and, on PostgreSQL, a
 * new server process). Every public overload goes through the private
 * {@code getConnection(String, Properties, Class)}, the one woven. Pools open theirs through the
 * driver itself ({@code Driver.connect}), so a pooled service records nothing here. Recorded as
 * calls of kind {@code db-connect}; the URL is cut at its parameters, where credentials go. A JDK
 * class: woven by exact name.
 */
final class JdbcConnectHooks {
    static final String DRIVER_MANAGER = "java.sql.DriverManager";
    static final String KIND = "db-connect";

    private JdbcConnectHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(new Hook(DRIVER_MANAGER, "getConnection", "(Ljava/lang/String;Ljava/util/Properties;Ljava/lang/Class;)",
                Hook.TIMED | Hook.ARG0) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                String url = withoutParameters(String.valueOf(arg0));
                calls.record(end, KIND, "connect " + url, "connect " + url, start, thrown);
            }
        });
    }

    /**
     * {@code jdbc:postgresql://db:5432/app?user=u&password=p} → {@code jdbc:postgresql://db:5432/app};
     * {@code jdbc:sqlserver://db;user=u;password=p} → {@code jdbc:sqlserver://db}: drivers take
     * credentials after a '?' or a ';'. Credentials before the host ({@code jdbc:mysql://u:p@db}) are cut too.
     */
    static String withoutParameters(String url) {
        int cut = url.length();
        for (char c : new char[] {'?', ';'}) {
            int i = url.indexOf(c);
            if (i >= 0 && i < cut) cut = i;
        }
        String u = url.substring(0, cut);
        int scheme = u.indexOf("://"), at = u.lastIndexOf('@');
        if (scheme >= 0 && at > scheme) u = u.substring(0, scheme + 3) + u.substring(at + 1);
        return u;
    }
}
