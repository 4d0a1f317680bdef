package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.instrument.TargetResolver;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Host-name lookups that reach the resolver are calls of kind dns. A reverse lookup is cached
 * only on the InetAddress that asked, so naming each client by its address resolves once per
 * request: here against /etc/hosts (127.0.0.1), which needs no network.
 */
class DnsProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void reverseLookupsAreTimedEachWithTheApplicationsCaller() throws Exception {
        acme.ClientNames.nameLoopbackClients(1);  // the name service's class is loaded, as in a service that has served traffic
        Probes p = Probes.ensure(ProbeContext.INST);
        // The first lookup after the weave also links the hook's call sites, inside the time it records:
        // 70 ms once on a loaded CI machine. The five after it are the resolver's own time.
        acme.ClientNames.nameLoopbackClients(1);
        long linked = (Long) CallRows.row(p, DnsHooks.KIND, DnsHooks.REVERSE).get("slowCount");
        assertThat(acme.ClientNames.nameLoopbackClients(5)).isEqualTo(5);
        Map<String, Object> row = CallRows.row(p, DnsHooks.KIND, DnsHooks.REVERSE);
        assertThat(row).containsEntry("count", 6L).containsEntry("slowCount", linked);  // /etc/hosts answers in far less than 20 ms
        assertThat((String) row.get("caller")).startsWith("acme.ClientNames.nameLoopbackClients:");
        // Its own threshold: at 0 ms every lookup is slow.
        ProbeContext.run(new CallsCommand(), true, "--slow-dns", "0");
        acme.ClientNames.nameLoopbackClients(2);
        assertThat(CallRows.row(p, DnsHooks.KIND, DnsHooks.REVERSE)).containsEntry("count", 8L).containsEntry("slowCount", linked + 2);
    }

    /** The forward hook's method is there on this JDK: its lookups need a resolver this test cannot count on. */
    @Test
    void theForwardLookupIsWovenOnThisJdk() throws Exception {
        String name = Runtime.version().feature() >= 18 ? DnsHooks.RESOLVER_18 : DnsHooks.NAME_SERVICE_17;
        String method = Runtime.version().feature() >= 18 ? "lookupByName" : "lookupAllHostAddr";
        assertThat(TargetResolver.resolve(ProbeContext.INST, name, method, true, false)).isNotEmpty();
        acme.ClientNames.nameLoopbackClients(1);
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(name + "." + method));
    }
}
