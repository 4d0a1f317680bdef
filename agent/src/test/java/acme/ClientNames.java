package acme;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An application that names each client by its address, as an access log with host names does. */
public final class ClientNames {
    private ClientNames() { }

    /** The loopback client's name, {@code times} times, each from a fresh address as each request brings one. */
    public static int nameLoopbackClients(int times) throws UnknownHostException {
        int named = 0;
        for (int i = 0; i < times; i++) {
            InetAddress client = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
            if (!client.getHostName().isEmpty()) named++;
        }
        return named;
    }
}
