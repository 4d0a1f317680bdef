package acme;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/** Application code outside culprit's packages that fans a quote out as enqueued OkHttp calls (CallSite skips culprit's own frames). */
public final class QuoteFanOut {

    private QuoteFanOut() { }

    /** Enqueues one call; the future completes with its status on OkHttp's dispatcher thread. */
    public static CompletableFuture<Integer> quote(OkHttpClient client, String url) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        client.newCall(new Request.Builder().url(url).build()).enqueue(new Callback() {
            @Override public void onFailure(Call call, IOException e) {
                done.completeExceptionally(e);
            }

            @Override public void onResponse(Call call, Response response) {
                response.close();
                done.complete(response.code());
            }
        });
        return done;
    }
}
