package io.culprit.agent.probe;

import java.util.List;

/**
 * Host-name lookups that miss the JVM's address cache and go to the system's resolver: the
 * platform name service's two methods, {@code InetAddress$PlatformNameService} on JDK 11 to 17
 * and {@code InetAddress$PlatformResolver} on 18 and later. A cached lookup never gets here, so
 * what is recorded is a resolver round trip (a DNS query, or /etc/hosts): a forward lookup that
 * the cache does not keep (a TTL of 0, a negative answer), {@code getLocalHost()} beyond the
 * cache's 30 s, and reverse lookups, which {@code InetAddress} keeps only on the object that asked
 * ({@code getHostName()} on every client's address, {@code ServletRequest.getRemoteHost()} with
 * Tomcat's lookups on). Recorded as calls of kind {@code dns}: forward lookups by host name,
 * reverse lookups as one target (client addresses are many). JDK classes: woven by exact name.
 */
final class DnsHooks {
    static final String KIND = "dns";
    static final String NAME_SERVICE_17 = "java.net.InetAddress$PlatformNameService";
    static final String RESOLVER_18 = "java.net.InetAddress$PlatformResolver";
    static final String REVERSE = "reverse lookup";

    private DnsHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(forward(calls, NAME_SERVICE_17, "lookupAllHostAddr"), forward(calls, RESOLVER_18, "lookupByName"),
                reverse(calls, NAME_SERVICE_17, "getHostByAddr"), reverse(calls, RESOLVER_18, "lookupByAddress"));
    }

    private static Hook forward(CallProbe calls, String className, String method) {
        return new Hook(className, method, "(Ljava/lang/String;", Hook.TIMED | Hook.ARG0) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                String host = "lookup " + arg0;
                calls.record(end, KIND, host, host, start, thrown);
            }
        };
    }

    private static Hook reverse(CallProbe calls, String className, String method) {
        return new Hook(className, method, "([B)", Hook.TIMED | Hook.ARG0) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                calls.record(end, KIND, REVERSE, REVERSE + " " + address(arg0), start, thrown);
            }
        };
    }

    /** The address asked about, as text: 127.0.0.1, or the hex of an IPv6 address. */
    static String address(Object bytes) {
        if (!(bytes instanceof byte[])) return "?";
        byte[] b = (byte[]) bytes;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i++) {
            if (b.length == 4) {
                if (i > 0) sb.append('.');
                sb.append(b[i] & 0xff);
            } else {
                if (i > 0 && i % 2 == 0) sb.append(':');
                sb.append(String.format("%02x", b[i] & 0xff));
            }
        }
        return sb.toString();
    }
}
