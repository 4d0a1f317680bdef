package io.culprit.lab.orders;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** receipt-leak's endpoints: issue an order's receipt, and download an archived one again. */
@RestController
public class ReceiptController {

    private final Receipts receipts;

    public ReceiptController(Receipts receipts) {
        this.receipts = receipts;
    }

    @GetMapping("/api/orders/{id}/receipt")
    public Receipts.Receipt receipt(@PathVariable long id) {
        return receipts.issue(id);
    }

    @GetMapping("/api/receipts/{number}")
    public ResponseEntity<byte[]> download(@PathVariable long number) {
        return receipts.download(number).map(b -> ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body(b))
                .orElse(ResponseEntity.notFound().build());
    }
}
