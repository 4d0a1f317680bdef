package io.culprit.lab;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Which fault is live. Every fault site asks {@link #faulty(Scenario)} on each request, so a fault
 * is active only in its own scenario and only until {@code fixed}. The mode can be flipped at
 * runtime (POST /lab/mode) so one process serves a scenario and its fixed twin back to back. A flip
 * stands for a redeploy of the fix: state only the faulty code kept (receipt-leak's archive) is
 * dropped by the {@link #onSwitch} listeners, as a restart would drop it.
 */
@Component
public class LabMode {

    private static final Logger log = LoggerFactory.getLogger(LabMode.class);

    private volatile Scenario scenario;
    private volatile boolean fixed;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    public LabMode(@Value("${lab.scenario:healthy}") String scenario, @Value("${lab.fixed:false}") boolean fixed) {
        set(Scenario.of(scenario), fixed);
    }

    /** True when {@code s} is the selected scenario and its fix is not applied. */
    public boolean faulty(Scenario s) {
        return scenario == s && !fixed;
    }

    public Scenario scenario() {
        return scenario;
    }

    public boolean fixed() {
        return fixed;
    }

    public synchronized void set(Scenario scenario, boolean fixed) {
        this.scenario = scenario;
        this.fixed = fixed;
        log.info("lab scenario {}{}", scenario.slug(), fixed ? " (fixed)" : "");
        listeners.forEach(Runnable::run);
    }

    /** Runs {@code listener} after every change of scenario or twin. */
    public void onSwitch(Runnable listener) {
        listeners.add(listener);
    }
}
