package io.culprit.lab.products;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import io.culprit.lab.data.LabData;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The storefront's search suggestions: the distinct terms of the catalog (SKU and its lower case, SKU
 * family, name, name words, lower-cased name), in catalog order, that start with what the user typed; 20 at most.
 *
 * <p>quadratic-keywords (not one of CASES.md's seeds: an algorithmic CPU fault, kept as a test
 * that the diagnosis names code no rule knows): the terms are deduplicated into a list with
 * {@code if (!list.contains(term)) list.add(term)}, a linear scan per term, so a request compares
 * each of 3,500 terms with up to 2,500 kept ones: about four million string comparisons, all CPU,
 * no lock, no I/O, no allocation to speak of. The fixed twin keeps the same order with a
 * LinkedHashSet: one hash lookup per term.
 */
@RestController
public class KeywordsController {

    static final int SUGGESTIONS = 20;

    private final CatalogCache cache;
    private final LabMode mode;

    public KeywordsController(CatalogCache cache, LabMode mode) {
        this.cache = cache;
        this.mode = mode;
    }

    @GetMapping("/api/products/keywords")
    public List<String> keywords(@RequestParam(defaultValue = "") String q) {
        int n = LabData.PRODUCTS;
        boolean quadratic = mode.faulty(Scenario.QUADRATIC_KEYWORDS);
        Collection<String> terms = quadratic ? new ArrayList<>() : new LinkedHashSet<>();
        for (long id = 1; id <= n; id++) {
            String sku = cache.get("sku", id);
            String name = cache.get("name", id);
            if (sku == null || name == null) continue;
            add(terms, sku, quadratic);
            add(terms, sku.toLowerCase(Locale.ROOT), quadratic);
            add(terms, sku.substring(0, Math.min(6, sku.length())), quadratic);
            add(terms, name, quadratic);
            for (String word : name.split(" ")) add(terms, word, quadratic);
            add(terms, name.toLowerCase(Locale.ROOT), quadratic);
        }
        String prefix = q.toLowerCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        for (String t : terms) {
            if (out.size() == SUGGESTIONS) break;
            if (t.toLowerCase(Locale.ROOT).startsWith(prefix)) out.add(t);
        }
        return out;
    }

    private static void add(Collection<String> terms, String term, boolean quadratic) {
        if (!quadratic) {
            terms.add(term);  // a set keeps the first occurrence's place
        } else if (!terms.contains(term)) {
            terms.add(term);
        }
    }
}
