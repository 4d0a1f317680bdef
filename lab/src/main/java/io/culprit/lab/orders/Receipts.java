package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.springframework.stereotype.Service;

/**
 * Issues printable receipts: an order rendered as fixed-width text (360 lines of 132 columns,
 * ~48 KB), numbered, and archived so the customer can download it again by its number.
 *
 * <p>receipt-leak (not one of CASES.md's seeds: the commonest memory fault there is, kept as a
 * test that the diagnosis generalises): the archive is a map keyed by the receipt number, which
 * only ever grows, and nothing evicts it. Every request adds ~48 KB that stays reachable: the live
 * heap after each collection climbs with the request count until the JVM spends its time in GC
 * and then throws OutOfMemoryError. The fixed twin keeps the newest {@link #KEPT_WHEN_FIXED}
 * receipts (a re-download is asked for within minutes) and evicts the eldest.
 */
@Service
public class Receipts {

    static final int LINES = 360;
    static final int COLUMNS = 132;
    static final int KEPT_WHEN_FIXED = 200;

    private final Orders orders;
    private final LabMode mode;
    private final AtomicLong numbers = new AtomicLong();
    /** Receipt number → rendered receipt: the faulty archive, never evicted. */
    private final Map<Long, byte[]> archive = new ConcurrentHashMap<>();
    /** The fixed twin's archive: the newest receipts only. */
    private final Map<Long, byte[]> recent = Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, byte[]> eldest) {
            return size() > KEPT_WHEN_FIXED;
        }
    });

    public Receipts(Orders orders, LabMode mode) {
        this.orders = orders;
        this.mode = mode;
        // The fault's archive is the leak itself: a service redeployed with the fix starts without it.
        mode.onSwitch(() -> {
            if (!mode.faulty(Scenario.RECEIPT_LEAK)) archive.clear();
        });
    }

    /** Renders the order's receipt and archives it under a new number. */
    public Receipt issue(long orderId) {
        Orders.Order order = orders.find(orderId).orElseThrow(() -> new IllegalArgumentException("no order " + orderId));
        long number = numbers.incrementAndGet();
        StringBuilder doc = new StringBuilder(LINES * (COLUMNS + 1));
        row(doc, "RECEIPT " + number + "  order " + order.number() + "  customer " + order.customerName());
        for (int i = 1; i < LINES; i++) {
            Orders.Line l = order.lines().get(i % order.lines().size());
            row(doc, String.format("%4d %-12s %-40s %4d x %10.2f", i, l.sku(), l.productName(), l.qty(), l.priceCents() / 100.0));
        }
        byte[] bytes = doc.toString().getBytes(StandardCharsets.US_ASCII);
        (mode.faulty(Scenario.RECEIPT_LEAK) ? archive : recent).put(number, bytes);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return new Receipt(number, orderId, bytes.length, Long.toHexString(crc.getValue()));
    }

    /** An archived receipt, by number. */
    public Optional<byte[]> download(long number) {
        byte[] b = archive.get(number);
        return Optional.ofNullable(b != null ? b : recent.get(number));
    }

    /** How many receipts are archived (both twins). */
    public int archived() {
        return archive.size() + recent.size();
    }

    private static void row(StringBuilder doc, String text) {
        int start = doc.length();
        doc.append(text, 0, Math.min(text.length(), COLUMNS));
        while (doc.length() - start < COLUMNS) {
            doc.append(' ');
        }
        doc.append('\n');
    }

    public record Receipt(long number, long orderId, int bytes, String crc32) {
    }
}
