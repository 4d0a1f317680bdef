package io.culprit.lab.customers;

import jakarta.annotation.PostConstruct;
import java.util.Locale;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

/**
 * A cache client bean, declared prototype-scoped "to be safe" although it is stateless: the kind
 * of bean seed 4 created ~200 times per request. Each getBean() runs the full creation path:
 * instantiation, dependency resolution, post-processors and the init callback.
 */
@Component
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class ProductLookup {

    private final ProductCache cache;
    private Locale locale;

    public ProductLookup(ProductCache cache) {
        this.cache = cache;
    }

    @PostConstruct
    void init() {
        locale = Locale.getDefault();
    }

    public String displayName(long productId) {
        String name = cache.name(productId);
        return name == null ? "#" + productId : name.toUpperCase(locale);
    }
}
