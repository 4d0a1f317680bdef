package io.culprit.lab.remote;

import io.culprit.lab.outbound.PaymentClient;
import jakarta.annotation.PreDestroy;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * The payment service the lab calls over HTTP, served by the lab itself on loopback (the
 * inventory service is {@link InventoryStub}).
 *
 * <p>The payment service answers after {@code lab.payments.latency-ms} (default 50 ms), the
 * latency of a real remote dependency. It is not a fault: it is the same in every scenario and
 * twin. It is answered asynchronously (no thread sleeps), so it costs no Tomcat thread while
 * pending; row-lock's fault is holding the hot row across this call.
 */
@RestController
public class RemoteServicesController {

    private final long paymentLatencyMs;
    private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "payments-clock");
        t.setDaemon(true);
        return t;
    });

    public RemoteServicesController(@Value("${lab.payments.latency-ms:50}") long paymentLatencyMs) {
        this.paymentLatencyMs = paymentLatencyMs;
    }

    @PostMapping("/remote/payments/authorize")
    public DeferredResult<PaymentClient.Authorization> authorize(@RequestBody PaymentClient.Authorize req) {
        DeferredResult<PaymentClient.Authorization> result = new DeferredResult<>(10_000L);
        String auth = "AUTH-" + req.orderId() + "-" + Long.toHexString(req.amountCents());
        clock.schedule(() -> result.setResult(new PaymentClient.Authorization(auth)), paymentLatencyMs, TimeUnit.MILLISECONDS);
        return result;
    }

    @PreDestroy
    void stop() {
        clock.shutdownNow();
    }
}
