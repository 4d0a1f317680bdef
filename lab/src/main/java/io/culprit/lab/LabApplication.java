package io.culprit.lab;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The lab service: an orders/customers JSON API with one seeded performance fault switched on by
 * {@code --lab.scenario=NAME} (and removed by {@code --lab.fixed=true}). Normally started by
 * {@code culprit lab}, which also applies the scenario's JVM flags; see docs/LAB.md.
 */
@SpringBootApplication
public class LabApplication {

    public static void main(String[] args) {
        SpringApplication.run(LabApplication.class, args);
    }
}
