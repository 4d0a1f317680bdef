package io.culprit.lab.products;

import com.netflix.hystrix.HystrixCommand;
import com.netflix.hystrix.HystrixCommandGroupKey;
import com.netflix.hystrix.HystrixCommandKey;
import com.netflix.hystrix.HystrixCommandProperties;
import com.netflix.hystrix.HystrixThreadPoolProperties;

/**
 * A Hystrix command around a local cache getter, as in seed 5. Hystrix guards it with a timeout:
 * every execution registers a listener with HystrixTimer, i.e. schedules a task on one shared
 * ScheduledThreadPoolExecutor whose queue is guarded by a single lock, and cancels it on completion.
 */
final class CatalogCommand extends HystrixCommand<String> {

    private static final HystrixCommandGroupKey GROUP = HystrixCommandGroupKey.Factory.asKey("catalog");

    private final CatalogCache cache;
    private final String attribute;
    private final long productId;

    CatalogCommand(CatalogCache cache, String attribute, long productId) {
        super(Setter.withGroupKey(GROUP)
                .andCommandKey(HystrixCommandKey.Factory.asKey("catalog-" + attribute))
                .andCommandPropertiesDefaults(HystrixCommandProperties.Setter().withExecutionTimeoutInMilliseconds(1_000))
                // Enough threads that the load never hits Hystrix rejections: the fault is the timer lock.
                .andThreadPoolPropertiesDefaults(HystrixThreadPoolProperties.Setter().withCoreSize(32)
                        .withMaximumSize(32).withMaxQueueSize(-1)));
        this.cache = cache;
        this.attribute = attribute;
        this.productId = productId;
    }

    @Override
    protected String run() {
        return cache.get(attribute, productId);
    }
}
