package acme;

import io.ktor.client.HttpClient;
import io.ktor.client.request.HttpRequestBuilder;
import io.ktor.client.request.HttpRequestKt;
import io.ktor.client.statement.HttpResponse;
import io.ktor.client.statement.HttpStatement;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlinx.coroutines.BuildersKt;

/**
 * Application code outside culprit's packages that calls a partner through Ktor's client, as a
 * Kotlin caller would: the suspend call run under {@code runBlocking} (CallSite skips culprit's own frames).
 */
public final class PartnerCalls {

    private PartnerCalls() { }

    /** The status of a GET of {@code url}, its whole body read. */
    public static int get(HttpClient client, String url) throws InterruptedException {
        HttpResponse response = BuildersKt.runBlocking(EmptyCoroutineContext.INSTANCE, (scope, continuation) -> {
            HttpRequestBuilder builder = new HttpRequestBuilder();
            HttpRequestKt.url(builder, url);
            return new HttpStatement(builder, client).execute(continuation);
        });
        return response.getStatus().getValue();
    }
}
