package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallSiteTest {

    @Test
    void aCallInsideACamelRouteIsPlacedAtTheApplicationCodeThatSentTheMessageOrElseAtTheRoute() throws Exception {
        try (org.apache.camel.CamelContext camel = new org.apache.camel.impl.DefaultCamelContext()) {
            java.util.List<CallSite> sites = new java.util.concurrent.CopyOnWriteArrayList<>();
            camel.addRoutes(new org.apache.camel.builder.RouteBuilder() {
                @Override
                public void configure() {
                    // A split whose every part makes the "call": the shape of a route's to("sql:…") per element.
                    from("direct:site").split(body()).process(e -> sites.add(CallSite.here())).end();
                }
            });
            camel.start();
            org.apache.camel.ProducerTemplate template = camel.createProducerTemplate();
            acme.QuoteDesk.quote(template, "direct:site", java.util.List.of("x"));
            assertThat(sites).hasSize(1);
            assertThat(sites.get(0).caller).as("the application frame above the route").startsWith("acme.QuoteDesk.quote:");
            // Sent from a thread with no application frame on it (as a timer or Camel's own consumer would): the
            // route engine's innermost frame.
            java.util.concurrent.ExecutorService plain = Executors.newSingleThreadExecutor();
            try {
                plain.submit(() -> template.requestBody("direct:site", java.util.List.of("y"))).get(10, TimeUnit.SECONDS);
            } finally {
                plain.shutdownNow();
            }
            assertThat(sites).hasSize(2);
            assertThat(sites.get(1).caller).startsWith("org.apache.camel.");
        }
    }

    @Test
    void aCallFromAScheduledTaskIsBackgroundAndOneFromAPlainThreadIsNot() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        Timer timer = new Timer(true);
        try {
            assertThat(scheduler.schedule(CallSite::here, 1, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS).background).isTrue();
            java.util.concurrent.ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                assertThat(pool.submit(CallSite::here).get(10, TimeUnit.SECONDS).background).as("a task handed to a plain pool").isFalse();
            } finally {
                pool.shutdownNow();
            }
            CompletableFuture<CallSite> fromTimer = new CompletableFuture<>();
            timer.schedule(new TimerTask() {
                @Override
                public void run() {
                    fromTimer.complete(CallSite.here());
                }
            }, 1);
            assertThat(fromTimer.get(10, TimeUnit.SECONDS).background).isTrue();
            assertThat(CallSite.here().background).as("the test's own thread").isFalse();
        } finally {
            scheduler.shutdownNow();
            timer.cancel();
        }
    }

    @org.springframework.context.annotation.Configuration
    @org.springframework.cache.annotation.EnableCaching
    static class Caching {
        @org.springframework.context.annotation.Bean
        org.springframework.cache.CacheManager cacheManager() {
            return new org.springframework.cache.concurrent.ConcurrentMapCacheManager("summaries");
        }

        @org.springframework.context.annotation.Bean
        example.shop.CachedPrices prices() {
            return new example.shop.CachedPrices();
        }
    }

    @Test
    void aCachedMethodCalledOnThisIsSeenToRunWithoutTheCacheAndOneCalledThroughTheProxyIsNot() {
        try (var ctx = new org.springframework.context.annotation.AnnotationConfigApplicationContext(Caching.class)) {
            example.shop.CachedPrices prices = ctx.getBean(example.shop.CachedPrices.class);
            CallSite proxied = (CallSite) prices.summary("eu", CallSite::here);
            assertThat(proxied.bypass).as("a miss through the proxy, under the cache interceptor").isNull();
            CallSite self = (CallSite) prices.page("eu", CallSite::here);
            assertThat(self.bypass).matches("@Cacheable example\\.shop\\.CachedPrices\\.summary:\\d+ called from example\\.shop\\.CachedPrices\\.page:\\d+");
            // Past the proxy it ran again for a key the cache holds: the cache was never asked.
            assertThat(prices.page("eu", () -> "ran")).isEqualTo("ran");
            assertThat(CallSite.here().bypass).as("no annotated method on the test's own stack").isNull();
        }
    }

    @org.springframework.context.annotation.Configuration
    @org.springframework.transaction.annotation.EnableTransactionManagement
    static class Transactions {
        @org.springframework.context.annotation.Bean
        org.springframework.transaction.PlatformTransactionManager transactionManager() {
            return new org.springframework.transaction.support.AbstractPlatformTransactionManager() {
                @Override
                protected Object doGetTransaction() {
                    return new Object();
                }

                @Override
                protected void doBegin(Object tx, org.springframework.transaction.TransactionDefinition definition) { }

                @Override
                protected void doCommit(org.springframework.transaction.support.DefaultTransactionStatus status) {
                    example.shop.OrderDesk.seenAtCommit = example.shop.OrderDesk.statementAtCommit.get();
                }

                @Override
                protected void doRollback(org.springframework.transaction.support.DefaultTransactionStatus status) { }
            };
        }

        @org.springframework.context.annotation.Bean
        example.shop.OrderDesk orderDesk() {
            return new example.shop.OrderDesk();
        }
    }

    @Test
    void aStatementFlushedAtCommitIsTheTransactionalMethodsNotItsCallers() {
        try (var ctx = new org.springframework.context.annotation.AnnotationConfigApplicationContext(Transactions.class)) {
            example.shop.OrderDesk desk = ctx.getBean(example.shop.OrderDesk.class);
            assertThat(desk.getClass().getName()).as("a CGLIB proxy").contains("$$SpringCGLIB$$");
            example.shop.OrderDesk.statementAtCommit = CallSite::here;
            example.shop.Checkout.submit(desk);
            CallSite atCommit = (CallSite) example.shop.OrderDesk.seenAtCommit;
            // place() has returned: only its proxy's frame is left, below the commit.
            assertThat(atCommit.caller).isEqualTo("example.shop.OrderDesk.place");
            assertThat(atCommit.path).matches("example\\.shop\\.OrderDesk\\.place ← example\\.shop\\.Checkout\\.submit:\\d+");
        }
    }

    @Test
    void aProxysClassNamesTheClassItProxies() {
        assertThat(CallSite.proxiedClass("com.acme.OrderService$$SpringCGLIB$$0")).isEqualTo("com.acme.OrderService");
        assertThat(CallSite.proxiedClass("com.acme.OrderService$$EnhancerBySpringCGLIB$$1f2e3d")).isEqualTo("com.acme.OrderService");
        assertThat(CallSite.proxiedClass("com.acme.OrderService")).isNull();
        assertThat(CallSite.proxiedClass("jdk.proxy2.$Proxy87")).isNull();
    }

    /**
     * A method with no line table in the application's class (Panache's enhancer adds count, find and
     * list to a repository so) gives way to the class's own method that called it.
     */
    @Test
    void aMethodAnEnhancerAddedGivesWayToItsClasssCaller() throws Exception {
        byte[] original;
        try (java.io.InputStream in = example.shop.HoldLedger.class.getResourceAsStream("HoldLedger.class")) {
            original = in.readAllBytes();
        }
        net.bytebuddy.jar.asm.ClassReader reader = new net.bytebuddy.jar.asm.ClassReader(original);
        net.bytebuddy.jar.asm.ClassWriter writer = new net.bytebuddy.jar.asm.ClassWriter(0);
        reader.accept(new net.bytebuddy.jar.asm.ClassVisitor(net.bytebuddy.jar.asm.Opcodes.ASM9, writer) {
            @Override
            public net.bytebuddy.jar.asm.MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
                net.bytebuddy.jar.asm.MethodVisitor mv = super.visitMethod(access, name, desc, sig, exceptions);
                if (!name.equals("count")) return mv;
                return new net.bytebuddy.jar.asm.MethodVisitor(net.bytebuddy.jar.asm.Opcodes.ASM9, mv) {
                    @Override
                    public void visitLineNumber(int line, net.bytebuddy.jar.asm.Label start) { }
                };
            }
        }, 0);
        byte[] stripped = writer.toByteArray();
        ClassLoader loader = new ClassLoader(getClass().getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals("example.shop.HoldLedger")) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : defineClass(name, stripped, 0, stripped.length);
                }
            }
        };
        Class<?> ledger = loader.loadClass("example.shop.HoldLedger");
        Object instance = ledger.getConstructor().newInstance();
        java.util.function.Supplier<Object> here = CallSite::here;
        CallSite site = (CallSite) ledger.getMethod("countWaiting", java.util.function.Supplier.class).invoke(instance, here);
        assertThat(site.caller).matches("example\\.shop\\.HoldLedger\\.countWaiting:\\d+");
        // The same class with its line table: the inner method is the site, as before.
        CallSite plain = (CallSite) new example.shop.HoldLedger().countWaiting(here);
        assertThat(plain.caller).matches("example\\.shop\\.HoldLedger\\.count:\\d+");
    }

    @Test
    void quarkusFramesAndTheClassesArcGeneratesAreNoCallSite() {
        for (String c : new String[] {"org.acme.LoanService_Subclass", "org.acme.LoanService_Subclass$0", "org.acme.LoanService_ClientProxy",
                "org.acme.PartnerClient$$QuarkusRestClientInterface", "io.quarkus.arc.impl.InterceptedMethodInvocationContext",
                "org.jboss.resteasy.reactive.server.handlers.InvocationHandler", "io.smallrye.context.impl.wrappers.SlowContextualRunnable",
                "io.agroal.pool.wrapper.ConnectionWrapper", "io.quarkus.hibernate.orm.panache.common.runtime.AbstractJpaOperations",
                "io.quarkus.redis.runtime.datasource.BlockingValueCommandsImpl", "org.jboss.resteasy.reactive.client.impl.InvocationBuilderImpl"}) {
            assertThat(CallSite.skipped(c)).as(c).isTrue();
        }
        assertThat(CallSite.skipped("org.acme.LoanService")).isFalse();
    }

    /**
     * A statement the driver runs for {@code DatabaseMetaData} (here a stand-in driver whose
     * metadata answers the first question with the call site) is a catalog read, and names the
     * library call the application made: Spring's SimpleJdbcInsert reading the table's columns.
     */
    @Test
    void aCatalogReadNamesTheLibraryCallThatAskedForIt() {
        CallSite[] seen = new CallSite[1];
        java.sql.DatabaseMetaData metadata = proxy(java.sql.DatabaseMetaData.class, (p, m, a) -> {
            if (seen[0] == null) seen[0] = CallSite.here();
            throw new java.sql.SQLException("no catalog here");
        });
        java.sql.Connection connection = proxy(java.sql.Connection.class, (p, m, a) -> {
            if (m.getName().equals("getMetaData")) return metadata;
            throw new java.sql.SQLException("stand-in connection");
        });
        javax.sql.DataSource ds = proxy(javax.sql.DataSource.class, (p, m, a) -> {
            if (m.getName().equals("getConnection")) return connection;
            throw new java.sql.SQLException("stand-in data source");
        });
        try {
            example.shop.ClaimIntake.submit(ds);
        } catch (RuntimeException expected) {
            // the stand-in has no table to insert into
        }
        assertThat(seen[0]).as("the metadata was asked").isNotNull();
        assertThat(seen[0].catalogVia).isEqualTo("org.springframework.jdbc.core.simple.SimpleJdbcInsert.execute");
        assertThat(seen[0].caller).startsWith("example.shop.ClaimIntake.submit:");
        assertThat(CallSite.here().catalogVia).as("a stack without DatabaseMetaData").isNull();
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, java.lang.reflect.InvocationHandler h) {
        return (T) java.lang.reflect.Proxy.newProxyInstance(CallSiteTest.class.getClassLoader(), new Class<?>[] {type}, h);
    }
}
