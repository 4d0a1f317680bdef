package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.util.HashMap;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * log4j2 events through the real log4j-core: a logger with its own config and appender, additive
 * to the root's, so each event passes two LoggerConfigs and two appenders and must still count
 * once; events below the level never reach an appender and are not counted.
 */
class Log4jProbeTest {

    private LoggerContext context;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
        if (context != null) Configurator.shutdown(context);
    }

    @Test
    void eventsCountOnceAcrossAdditiveConfigsWithTheirStackTraces() throws Exception {
        ConfigurationBuilder<BuiltConfiguration> b = ConfigurationBuilderFactory.newConfigurationBuilder();
        b.setConfigurationName("culprit-probe-test");
        b.add(b.newAppender("root-sink", "Null"));
        b.add(b.newAppender("storm-sink", "Null"));
        b.add(b.newRootLogger(Level.INFO).add(b.newAppenderRef("root-sink")));
        b.add(b.newLogger("lab.storm", Level.INFO).add(b.newAppenderRef("storm-sink")).addAttribute("additivity", true));
        // A context of the test's own: Configurator.initialize hands back the class loader's default
        // context, unconfigured, when another test (Spring starts log4j2's) has already started it.
        context = new LoggerContext("culprit-probe-test");
        context.start(b.build());
        Logger logger = context.getLogger("lab.storm.Invoices");
        logger.info("warm-up");  // loads the classes the probe weaves
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(LoggingProbe.LOG4J_LOGGER_CONFIG + ".log"));
        for (int i = 0; i < 30; i++) logger.error("failed " + i, new IllegalStateException("boom"));
        for (int i = 0; i < 70; i++) logger.info("fine {}", i);
        for (int i = 0; i < 50; i++) logger.debug("filtered out by level: never reaches an appender");

        Map<String, Map<String, Object>> byLevel = new HashMap<>();
        for (Map<String, Object> r : p.logging.rows(1.0)) byLevel.put((String) r.get("level"), r);
        assertThat(byLevel).containsOnlyKeys("ERROR", "INFO");
        assertThat(byLevel.get("ERROR")).containsEntry("events", 30L).containsEntry("withStackTrace", 30L)
                .containsEntry("logger", "lab.storm.Invoices");
        assertThat(byLevel.get("INFO")).containsEntry("events", 70L).containsEntry("withStackTrace", 0L);
        assertThat((double) byLevel.get("ERROR").get("appenderMs")).isPositive();
    }
}
