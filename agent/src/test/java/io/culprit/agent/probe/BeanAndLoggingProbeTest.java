package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.culprit.agent.instrument.Instrumenter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;

/** Bean creations through a real Spring bean factory; log events through a real logback logger. */
class BeanAndLoggingProbeTest {

    /** A prototype the test fetches, as seed 4's service fetched its per-call helper. */
    public static final class Helper { }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void aPrototypeFetched200TimesIsCounted200TimesAndASingletonNotAgain() throws Exception {
        DefaultListableBeanFactory factory = new DefaultListableBeanFactory();
        RootBeanDefinition proto = new RootBeanDefinition(Helper.class);
        proto.setScope(BeanDefinition.SCOPE_PROTOTYPE);
        factory.registerBeanDefinition("helper", proto);
        factory.registerBeanDefinition("single", new RootBeanDefinition(Helper.class));
        factory.getBean("single");
        factory.getBean("helper");  // the factory's classes are loaded before the probes start
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 200; i++) factory.getBean("helper");
        factory.getBean("single");
        List<Map<String, Object>> rows = p.beans.rows(1);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0)).containsEntry("bean", "helper").containsEntry("type", Helper.class.getName())
                .containsEntry("scope", "prototype").containsEntry("count", 200L).containsEntry("perRequest", 200.0);
        assertThat(ProbeContext.run(new BeansCommand(), false).text()).containsPattern("helper\\s+.*Helper\\s+prototype\\s+200");
    }

    @Test
    void logEventsAreCountedByLevelWithTheirStackTraces() throws Exception {
        LoggerContext context = new LoggerContext();
        AppenderBase<ILoggingEvent> sink = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                e.getFormattedMessage();
            }
        };
        sink.setContext(context);
        sink.start();
        Logger logger = context.getLogger("lab.storm");
        logger.setLevel(Level.INFO);
        logger.addAppender(sink);
        logger.info("warm-up");  // loads the classes the probe weaves
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 30; i++) logger.warn("failed attempt {}", i, new IllegalStateException("boom"));
        for (int i = 0; i < 70; i++) logger.info("fine " + i);
        for (int i = 0; i < 50; i++) logger.debug("filtered out by level: never reaches an appender");
        Map<String, Map<String, Object>> byLevel = new java.util.HashMap<>();
        for (Map<String, Object> r : p.logging.rows(1.0)) byLevel.put((String) r.get("level"), r);
        assertThat(byLevel).containsOnlyKeys("WARN", "INFO");
        assertThat(byLevel.get("WARN")).containsEntry("events", 30L).containsEntry("withStackTrace", 30L)
                .containsEntry("logger", "lab.storm")
                // the message's pattern, as the code wrote it: what a library warns about, not one event's values
                .containsEntry("message", "failed attempt {}");
        assertThat(byLevel.get("INFO")).containsEntry("events", 70L).containsEntry("withStackTrace", 0L);
        assertThat((double) byLevel.get("WARN").get("appenderMs")).isPositive();
        assertThat(ProbeContext.run(new LoggingCommand(), false).text()).containsPattern("WARN\\s+lab.storm\\s+30\\s");
    }
}
