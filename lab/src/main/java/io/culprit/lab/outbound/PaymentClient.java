package io.culprit.lab.outbound;

import org.springframework.stereotype.Component;

/** Client of the payment service: authorizes an amount for an order. */
@Component
public class PaymentClient {

    private final LoopbackHttp http;
    private final ConvertersCodec codec;

    public PaymentClient(LoopbackHttp http, ConvertersCodec codec) {
        this.http = http;
        this.codec = codec;
    }

    public String authorize(long orderId, long amountCents) {
        byte[] answer = http.postJson("/remote/payments/authorize", codec.encode(new Authorize(orderId, amountCents)));
        return codec.decode(answer, Authorization.class).authorization();
    }

    public record Authorize(long orderId, long amountCents) {
    }

    public record Authorization(String authorization) {
    }
}
