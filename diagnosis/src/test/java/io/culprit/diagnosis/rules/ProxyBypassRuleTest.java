package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Verdict;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** proxy-bypass on hand-made call tables: which bypass matters, and what it is told to do. */
class ProxyBypassRuleTest {
    @TempDir Path dir;

    private static final String SUMMARY = "select count(*), sum(price) from price_point where region = ?";

    private Evidence calls(String sub, String bypass, double share) {
        return CaseBuilder.in(dir.resolve(sub), 10, 2).table("calls",
                row("kind", "sql", "target", SUMMARY, "count", 3000, "shareOfRequestTime", share, "perRequest", 1.0,
                        "caller", "shop.PriceQueries.summarize:37", "callPath", "shop.PriceQueries.summarize:37 ← shop.Pricing.summaryFor:22",
                        "proxyBypass", bypass),
                row("kind", "sql", "target", "select * from region where code = ?", "count", 3000, "shareOfRequestTime", 0.02,
                        "perRequest", 1.0, "caller", "shop.Regions.find:12", "callPath", "shop.Regions.find:12", "proxyBypass", null))
                .evidence();
    }

    @Test
    void aCachedMethodCalledOnThisIsTheCauseOfTheQueryItWasMeantToSpare() {
        Finding f = new ProxyBypassRule().evaluate(calls("a", "@Cacheable shop.Pricing.summaryFor:22 called from shop.Pricing.page:15", 0.64));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("shop.Pricing.summaryFor:22");
        assertThat(f.summary()).isEqualTo("shop.Pricing.summaryFor is @Cacheable, but was called on this from shop.Pricing.page:15,"
                + " inside its own class, past the bean's proxy: the cache was never asked; the sql"
                + " \"select count(*), sum(price) from price_point where region...\" under it runs 1 time(s) per request, 64 % of request time.");
        assertThat(f.fix()).startsWith("Call the cached method through the bean's proxy");
        assertThat(f.explains()).contains("slow-calls", "pool-starvation");
        assertThat(f.confirm()).contains("stack shop.Pricing summaryFor -n 3").contains("no CacheInterceptor frame");
    }

    @Test
    void aSmallShareIsInfoAndABypassedTransactionNeverMoreThanInfo() {
        assertThat(new ProxyBypassRule().evaluate(calls("b", "@Cacheable shop.Pricing.summaryFor:22 called from shop.Pricing.page:15", 0.05))
                .severity()).isEqualTo(Severity.INFO);
        Finding tx = new ProxyBypassRule().evaluate(calls("c", "@Transactional shop.Pricing.summaryFor:22 called from shop.Web.page:15", 0.9));
        assertThat(tx.severity()).isEqualTo(Severity.INFO);
        assertThat(tx.summary()).contains("was called from shop.Web.page:15 without the proxy's interceptor: no transaction was begun");
    }

    @Test
    void withoutABypassItIsRuledOutAndWithoutTheColumnNotAssessed() {
        Finding none = new ProxyBypassRule().evaluate(calls("d", null, 0.64));
        assertThat(none.severity()).isEqualTo(Severity.OK);
        assertThat(none.summary()).startsWith("every dependency call under a @Cacheable");
        Evidence old = CaseBuilder.in(dir.resolve("e"), 10, 2).table("calls",
                row("kind", "sql", "target", SUMMARY, "count", 3000, "shareOfRequestTime", 0.64)).evidence();
        assertThat(new ProxyBypassRule().evaluate(old).verdict()).isEqualTo(Verdict.NOT_ASSESSED);
    }
}
