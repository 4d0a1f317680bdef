package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.culprit.agent.instrument.Instrumenter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Log calls dropped for their level, through a real JUL logger and a real logback logger: the
 * message forms count, the level-enabled calls and the Supplier forms (which build nothing) do not.
 */
class DiscardedLogsTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void messagesBuiltForALevelThatIsOffAreCountedPerLogger() throws Exception {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("shop.ManifestCheck");
        jul.setLevel(java.util.logging.Level.INFO);
        LoggerContext context = new LoggerContext();
        ch.qos.logback.classic.Logger logback = context.getLogger("shop.PriceList");
        logback.setLevel(Level.INFO);
        jul.fine("warm-up");  // loads nothing new, but as a service would have
        logback.debug("warm-up");
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(DiscardedLogs.JUL_LOGGER + ".log"));
        for (int i = 0; i < 120; i++) jul.fine("line " + i);
        for (int i = 0; i < 30; i++) jul.finer("line " + i);
        for (int i = 0; i < 50; i++) jul.log(java.util.logging.Level.FINER, "line {0}", i);  // formats nothing while off: not counted
        for (int i = 0; i < 40; i++) jul.fine(() -> "built only when FINE is on");
        for (int i = 0; i < 5; i++) jul.warning("kept");  // the level is on: not dropped
        for (int i = 0; i < 60; i++) logback.debug("price " + i);
        for (int i = 0; i < 20; i++) logback.trace("price " + i);
        for (int i = 0; i < 30; i++) logback.debug("price {}", i);  // parameterized: not counted
        java.util.logging.Logger driver = java.util.logging.Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");
        for (int i = 0; i < 25; i++) driver.finest("a library's own message: not the application's");
        for (int i = 0; i < 7; i++) logback.info("kept");

        Map<String, Map<String, Object>> byLogger = new HashMap<>();
        for (Map<String, Object> r : p.discardedLogs.rows(10)) byLogger.put((String) r.get("logger"), r);
        assertThat(byLogger.get("shop.ManifestCheck")).containsEntry("calls", 150L).containsEntry("level", "FINE")
                .containsEntry("perRequest", 15.0);
        assertThat(byLogger.get("shop.PriceList")).containsEntry("calls", 80L).containsEntry("level", "DEBUG");
        assertThat(byLogger).doesNotContainKey("org.postgresql.core.v3.QueryExecutorImpl");
    }

    @Test
    void log4j2AndJbossLoggingMessagesDroppedForTheirLevelAreCounted() throws Exception {
        org.apache.logging.log4j.core.config.Configurator.setLevel("shop.Stock", org.apache.logging.log4j.Level.INFO);
        org.apache.logging.log4j.core.config.Configurator.setLevel("shop.Loans", org.apache.logging.log4j.Level.INFO);
        org.apache.logging.log4j.Logger log4j = org.apache.logging.log4j.LogManager.getLogger("shop.Stock");
        // JBoss Logging picks log4j2 as its backend here (Quarkus' is JBoss LogManager): the API's debug(Object) is woven either way.
        org.jboss.logging.Logger jboss = org.jboss.logging.Logger.getLogger("shop.Loans");
        log4j.debug("warm-up");
        jboss.debug("warm-up");
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 70; i++) log4j.debug("stock " + i);
        for (int i = 0; i < 10; i++) log4j.trace("stock " + i);
        for (int i = 0; i < 30; i++) log4j.debug("stock {}", i);  // parameterized: not counted
        for (int i = 0; i < 4; i++) log4j.info("kept");
        for (int i = 0; i < 45; i++) jboss.debug("loan " + i);
        for (int i = 0; i < 5; i++) jboss.trace("loan " + i);
        for (int i = 0; i < 20; i++) jboss.debugf("loan %d", i);  // formats nothing while off: not counted
        for (int i = 0; i < 3; i++) jboss.info("kept");

        Map<String, Map<String, Object>> byLogger = new HashMap<>();
        for (Map<String, Object> r : p.discardedLogs.rows(5)) byLogger.put((String) r.get("logger"), r);
        assertThat(byLogger.get("shop.Stock")).containsEntry("calls", 80L).containsEntry("level", "DEBUG").containsEntry("perRequest", 16.0);
        assertThat(byLogger.get("shop.Loans")).containsEntry("calls", 50L).containsEntry("level", "DEBUG");
    }
}
