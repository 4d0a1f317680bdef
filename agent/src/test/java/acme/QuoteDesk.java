package acme;

import org.apache.camel.ProducerTemplate;

/**
 * Application code outside culprit's packages that sends a message into a Camel route, as a
 * controller would with a {@code ProducerTemplate}: the route's producers and processors run on
 * this thread, below this frame.
 */
public final class QuoteDesk {

    private QuoteDesk() { }

    /** The body the route {@code uri} answers {@code body} with. */
    public static Object quote(ProducerTemplate template, String uri, Object body) {
        return template.requestBody(uri, body);
    }
}
