package io.culprit.lab.outbound;

import io.culprit.lab.remote.InventoryStub;
import org.springframework.stereotype.Component;

/** Client of the inventory service, whose API answers one SKU per call. */
@Component
public class InventoryClient {

    private final LoopbackHttp http;
    private final ConvertersCodec codec;
    private final InventoryStub service;

    public InventoryClient(LoopbackHttp http, ConvertersCodec codec, InventoryStub service) {
        this.http = http;
        this.codec = codec;
        this.service = service;
    }

    public int level(String sku) {
        byte[] answer = http.postJsonTo(service.baseUrl(), "/inventory", codec.encode(new StockQuery(sku)));
        return codec.decode(answer, StockLevel.class).level();
    }

    public record StockQuery(String sku) {
    }

    public record StockLevel(String sku, int level) {
    }
}
