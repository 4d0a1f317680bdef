package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.culprit.agent.instrument.Instrumenter;
import java.util.List;
import org.modelmapper.ModelMapper;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** ObjectMapper and engine constructions counted once each (chained constructors included), with their caller. */
class ConstructionProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void eachMapperBuiltPerCallIsCountedOnceWithItsCaller() throws Exception {
        new ObjectMapper();  // loaded, as in a service that has started
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 25; i++) perRequestMapper();
        JsonMapper.builder().build();  // a subclass: its super(...) chain is still one construction
        List<Map<String, Object>> rows = p.construction.rows(25);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).containsEntry("type", ObjectMapper.class.getName()).containsEntry("count", 25L)
                .containsEntry("perRequest", 1.0);
        assertThat((String) rows.get(0).get("caller")).contains("ConstructionProbeTest.perRequestMapper");
        assertThat(rows.get(1)).containsEntry("count", 1L);
        // built by JsonMapper's builder and constructor: the caller is the test, not Jackson's own frames
        assertThat((String) rows.get(1).get("caller")).contains("ConstructionProbeTest.eachMapperBuiltPerCallIsCountedOnceWithItsCaller");
        assertThat((double) rows.get(0).get("meanMs")).isPositive();
    }

    @Test
    void anEngineBuiltPerCallIsCountedWithItsCaller() throws Exception {
        new ModelMapper();
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 10; i++) perRequestEngine().map(new Source(), Source.class);
        List<Map<String, Object>> rows = p.construction.rows(10);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0)).containsEntry("type", ModelMapper.class.getName()).containsEntry("count", 10L)
                .containsEntry("perRequest", 1.0);
        assertThat((String) rows.get(0).get("caller")).contains("ConstructionProbeTest.perRequestEngine");
    }

    @Test
    void aValidatorFactoryBuiltPerCallThroughTheValidationApiNamesTheApplicationsCall() throws Exception {
        newFactory().close();  // loaded, as in a service that has started
        Probes p = Probes.ensure(ProbeContext.INST);
        for (int i = 0; i < 6; i++) {
            try (jakarta.validation.ValidatorFactory f = newFactory()) {
                assertThat(f.getValidator().validate(new Source())).isEmpty();
            }
        }
        List<Map<String, Object>> rows = p.construction.rows(6);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0)).containsEntry("type", "org.hibernate.validator.internal.engine.ValidatorFactoryImpl")
                .containsEntry("count", 6L);
        // Built inside jakarta.validation's bootstrap: the caller is the code that asked for it.
        assertThat((String) rows.get(0).get("caller")).contains("ConstructionProbeTest.newFactory");
    }

    private static jakarta.validation.ValidatorFactory newFactory() {
        return jakarta.validation.Validation.byDefaultProvider().configure()
                .messageInterpolator(new org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator())
                .buildValidatorFactory();
    }

    public static final class Source {
        private String name = "a";

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }
    }

    private static ModelMapper perRequestEngine() {
        return new ModelMapper();
    }

    private static ObjectMapper perRequestMapper() {
        return new ObjectMapper();
    }
}
