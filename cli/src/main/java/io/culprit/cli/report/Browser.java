package io.culprit.cli.report;

import java.awt.Desktop;
import java.awt.GraphicsEnvironment;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Opens a page in the user's browser: {@code $BROWSER} first (the Unix convention: a
 * colon-separated list of commands, {@code %s} replaced by the address or else the address
 * appended), then the AWT desktop, then {@code xdg-open}. A machine with none of them (a server,
 * CI) gets one line saying where the page is: not opening it is not an error, the page is written.
 */
final class Browser {
    /** A browser run in the foreground does not exit while it shows the page: still running after this, it opened. */
    private static final long WAIT_MS = 3000;

    private final Map<String, String> env;
    private final boolean desktop;
    private final List<String> fallbacks;

    Browser(Map<String, String> env, boolean desktop, List<String> fallbacks) {
        this.env = env;
        this.desktop = desktop;
        this.fallbacks = fallbacks;
    }

    static Browser system() {
        return new Browser(System.getenv(), true, List.of("xdg-open"));
    }

    /** True when something took the page; else says, in one line on {@code err}, where it is. */
    boolean open(Path file, PrintWriter err) {
        URI page = file.toAbsolutePath().normalize().toUri();
        for (List<String> cmd : fromEnv(page.toString())) if (launch(cmd)) return true;
        if (desktop && browse(page)) return true;
        for (String f : fallbacks) if (launch(List.of(f, page.toString()))) return true;
        err.println("culprit report: could not open a browser here (set $BROWSER to one); the page is " + page);
        return false;
    }

    /** The commands $BROWSER names, each with the page's address as its argument. */
    List<List<String>> fromEnv(String address) {
        List<List<String>> out = new ArrayList<>();
        String value = env.get("BROWSER");
        if (value == null) return out;
        for (String entry : value.split(":")) {
            List<String> words = new ArrayList<>(Arrays.asList(entry.strip().split("\\s+")));
            if (words.get(0).isEmpty()) continue;
            boolean placed = false;
            for (int i = 0; i < words.size(); i++) {
                if (!words.get(i).contains("%s")) continue;
                words.set(i, words.get(i).replace("%s", address));
                placed = true;
            }
            if (!placed) words.add(address);
            out.add(words);
        }
        return out;
    }

    private static boolean launch(List<String> cmd) {
        try {
            // Its chatter (xdg-open's, a browser's) is not ours to print: failure is said in one line.
            Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return !p.waitFor(WAIT_MS, TimeUnit.MILLISECONDS) || p.exitValue() == 0;
        } catch (IOException e) {
            return false;   // not installed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean browse(URI page) {
        try {
            if (GraphicsEnvironment.isHeadless() || !Desktop.isDesktopSupported()
                    || !Desktop.getDesktop().isSupported(Desktop.Action.BROWSE)) return false;
            Desktop.getDesktop().browse(page);
            return true;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}
