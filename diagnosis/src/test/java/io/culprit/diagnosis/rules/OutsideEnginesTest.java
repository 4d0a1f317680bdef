package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session 37's service outside the lab: library objects that are cheap to build and dear to use
 * cold, built per request (a Thymeleaf TemplateEngine, a ModelMapper, a copy of the shared
 * ObjectMapper), and text compiled per call that the library means to be compiled once (SpEL
 * expressions, a JSON schema). Before: caught exceptions inside OGNL for the engine, no root cause
 * for the mapper and the schema, a generic cpu-hotspot for SpEL, and the mapper copy at 0.2 % of
 * CPU because its serializers were built in a method other than the one that copied it.
 */
class OutsideEnginesTest {

    @Test
    void aTemplateEnginePerRequestIsTheCauseOfTheParsersExceptions() {
        Evidence ev = Fixtures.evidence("outside-template-engine-per-request");
        Finding f = new ConstructionRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("shop.ReportRenderer.createEngine");
        assertThat(f.summary()).startsWith("1 new org.thymeleaf.TemplateEngine per request")
                .contains("each new TemplateEngine starts without its dialects' configuration and the templates and"
                        + " expressions it has parsed: ")
                .contains("of CPU samples run in Thymeleaf under shop.ReportRenderer.");
        assertThat(f.explains()).contains("caught-exceptions");
        assertThat(f.fix()).startsWith("Build one TemplateEngine at start-up");
        assertThat(new ConstructionRule().evaluate(Fixtures.evidence("outside-template-engine-per-request-fixed")).isProblem()).isFalse();
    }

    @Test
    void aModelMapperPerRequestIsNamedWithItsColdTypeMaps() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-modelmapper-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("shop.OrderSummaryMapper.newMapper");
        assertThat(f.summary()).contains("each new ModelMapper starts without the type maps it introspects")
                .contains("of CPU samples run in ModelMapper under shop.OrderSummaryMapper.");
        assertThat(f.explanation()).startsWith("ModelMapper is cheap to construct and dear to use cold");
    }

    @Test
    void aMapperCopiedInOneMethodAndUsedInAnotherIsChargedItsSerializers() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-mapper-copy-per-request"));
        assertThat(f.isProblem()).isTrue();
        assertThat(f.culprit()).startsWith("shop.OrderExportWriter.exportMapperFrom");
        assertThat(f.summary()).contains("each new mapper builds its serializers again: ")
                .contains("of CPU samples in Jackson's serializer and deserializer factories under shop.OrderExportWriter.");
        assertThat(f.score()).isGreaterThan(0.15);
    }

    @Test
    void spelExpressionsParsedPerCallAreTheCauseOfTheHotMethod() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-spel-parse-per-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.PricingRules.quoteWithRuleText");
        assertThat(f.summary()).contains("of CPU samples parse SpEL expressions (and resolve their methods again on first"
                + " evaluation) on every call, called from shop.PricingRules.quoteWithRuleText");
        assertThat(f.explains()).contains("cpu-hotspot");
        assertThat(f.fix()).startsWith("Parse each expression once and keep the Expression");
    }

    @Test
    void aJsonSchemaBuiltPerRequestIsNamedAtATenthOfTheCpu() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-json-schema-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("shop.OrderValidator.loadSchema");
        assertThat(f.summary()).contains("of CPU samples build a JSON schema from its text on every call, called from"
                + " shop.OrderValidator.loadSchema");
        assertThat(new ConstructionRule().evaluate(Fixtures.evidence("outside-json-schema-per-request-fixed")).isProblem()).isFalse();
    }

    @Test
    void jpqlWithPastedValuesIsExplainedAsQueryTranslation() {
        Finding f = new OrmCpuRule().evaluate(Fixtures.evidence("outside-jpql-literals"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("compiling queries (HQL/JPQL to SQL)");
        assertThat(f.explanation()).startsWith("Hibernate parses each query string and translates it to SQL");
    }

    @Test
    void aGsonPerCallIsTheCauseOfTheSerializationCpu() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-gson-per-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("shop.ManifestExporter.toJson");
        assertThat(f.summary()).startsWith("50 new com.google.gson.Gson per request")
                .contains("each new Gson starts without the type adapters it builds by reflection for each class");
        assertThat(f.explains()).contains("serialization-cpu");
    }

    @Test
    void certificatesParsedPerTokenAreTheCauseOfTheParsersExceptions() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-certificate-parse-per-token"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.VoucherTokenVerifier.signingCertificate");
        assertThat(f.summary()).contains("of CPU samples parse certificates or keys from their encoded form on every call");
        assertThat(f.explains()).contains("caught-exceptions");
    }

    @Test
    void aCacheBuiltWhereItIsReadIsNamedSo() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-cache-built-per-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("shop.ProductDescriptionLookup.describe");
        assertThat(f.summary()).endsWith("and it is built anew in shop.ProductDescriptionLookup.describe (a cache builder's"
                + " build() runs there): each call starts with an empty cache.");
        assertThat(f.fix()).startsWith("Build the cache once");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-cache-too-small")).summary()).doesNotContain("built anew");
    }

    @TempDir Path tmp;

    /**
     * These cases were recorded before the agent recorded the service's packages, so ModelMapper and
     * OGNL counted as the service's own code. The same evidence with the packages a run records now
     * ({@code shop}, from BOOT-INF/classes) names the service's methods, and the verdict stands.
     */
    @Test
    void withTheServicesPackagesRecordedTheLibrariesAreNoLongerItsCode() throws Exception {
        Diagnosis.Result mapper = Diagnosis.run(withAppPackages("outside-modelmapper-per-request", "shop"));
        assertThat(mapper.top().orElseThrow().id()).isEqualTo("repeated-construction");
        Finding hot = mapper.finding("cpu-hotspot").orElseThrow();
        assertThat(hot.culprit()).isEqualTo("shop.OrderSummaryMapper.toSummariesForRequest");
        assertThat(hot.summary()).contains("in its call to org.modelmapper.ModelMapper.map");
        assertThat(Diagnosis.run(CaseFile.open(Fixtures.dir("outside-modelmapper-per-request"))).finding("cpu-hotspot").orElseThrow().summary())
                .as("without the packages").contains("the application method computing most on its own, org.modelmapper.");

        Diagnosis.Result engine = Diagnosis.run(withAppPackages("outside-template-engine-per-request", "shop"));
        assertThat(engine.top().orElseThrow().id()).isEqualTo("repeated-construction");
        assertThat(engine.finding("caught-exceptions").orElseThrow().summary())
                .contains("at ognl.Ognl.parseExpression:178 (called from shop.ReportRenderer.renderStandalone:26)");
    }

    private CaseFile withAppPackages(String fixture, String packages) throws Exception {
        Path d = Fixtures.copy(fixture, tmp.resolve(fixture));
        CaseFile cf = CaseFile.open(d);
        CaseInfo i = cf.info();
        Map<String, String> target = new HashMap<>(i.target());
        target.put("appPackages", packages);
        cf.write(CaseInfo.of(i.source(), i.startEpochMs(), i.endEpochMs(), i.commandLine(), target));
        return CaseFile.open(d);
    }
}
