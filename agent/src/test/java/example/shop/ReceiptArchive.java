package example.shop;

import java.util.LinkedHashMap;
import java.util.Map;

/** The newest receipts, by a number that never repeats: a bounded map that evicts on every insert and is no cache. */
public final class ReceiptArchive {
    private long next;
    private final Map<Long, String> recent = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
            return size() > 200;
        }
    };

    public synchronized long issue(String text) {
        long number = ++next;
        recent.put(number, text);
        return number;
    }
}
