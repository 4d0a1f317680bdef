package io.culprit.lab.orders;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Renders an order statement: fixed-layout text pages (66 lines of 132 columns, as a print
 * service expects) of the order, its lines and its customer's history. The last 480 rendered
 * statements (~25 MB) stay in a re-print buffer, so a jammed print job is re-sent without rendering.
 *
 * <p>gc-pool-starvation (seed 2): rendering allocates ~170 KB per request and happens inside the
 * transaction, so the connection is held while the thread allocates. The buffer makes the live set
 * ~53 MB; on a small heap that has Xms &lt; Xmx (-Xms16m -Xmx64m) the heap is ~83 % full after
 * every collection, so G1 collects a young generation of a few MB back to back, with mixed and
 * concurrent cycles in between. Each pause freezes threads that hold connections, and requests
 * arriving meanwhile pile up as pool waiters. The code is the same in the fixed twin: only the
 * JVM's heap flags change (see scenarios/gc-pool-starvation.json).
 */
@Service
public class StatementService {

    static final int PAGES = 6;
    static final int LINES_PER_PAGE = 66;
    static final int COLUMNS = 132;

    private final Orders orders;
    /** The re-print buffer: the last N rendered statements (a ring). */
    private final byte[][] reprints;
    private final AtomicLong rendered = new AtomicLong();

    public StatementService(Orders orders, @Value("${lab.reprint-buffer:480}") int reprintBuffer) {
        this.orders = orders;
        this.reprints = new byte[Math.max(1, reprintBuffer)][];
    }

    @Transactional(readOnly = true)
    public Statement render(long orderId) {
        Orders.Order order = orders.find(orderId).orElseThrow(() -> new IllegalArgumentException("no order " + orderId));
        List<String> lines = order.lines().stream().map(l -> String.format("%-12s %-40s %4d x %10.2f = %12.2f",
                l.sku(), l.productName(), l.qty(), l.priceCents() / 100.0, l.qty() * l.priceCents() / 100.0)).toList();
        StringBuilder doc = new StringBuilder(PAGES * LINES_PER_PAGE * (COLUMNS + 1));
        for (int page = 1; page <= PAGES; page++) {
            int start = doc.length();
            doc.append("STATEMENT  order ").append(order.id()).append("  customer ").append(order.customerName())
                    .append("  page ").append(page).append('/').append(PAGES);
            endRow(doc, start);
            for (int r = 1; r < LINES_PER_PAGE; r++) {
                start = doc.length();
                doc.append(r).append("  ").append(lines.get((page * LINES_PER_PAGE + r) % lines.size()));
                endRow(doc, start);
            }
        }
        byte[] bytes = doc.toString().getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        reprints[(int) (rendered.getAndIncrement() % reprints.length)] = bytes;
        return new Statement(orderId, PAGES, bytes.length, Long.toHexString(crc.getValue()));
    }

    /** Pads (or cuts) the row begun at {@code start} to the page width. */
    private static void endRow(StringBuilder doc, int start) {
        doc.setLength(Math.min(doc.length(), start + COLUMNS));
        while (doc.length() - start < COLUMNS) {
            doc.append(' ');
        }
        doc.append('\n');
    }

    public record Statement(long orderId, int pages, int bytes, String crc32) {
    }
}
