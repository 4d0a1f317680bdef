package io.culprit.cli.report;

import java.awt.Desktop;
import java.io.IOException;
import java.nio.file.Path;

/** Opens a file in the user's browser, or says how to when this machine has no desktop. */
final class Browser {
    private Browser() { }

    static int open(Path file, java.io.PrintWriter err) {
        try {
            if (!java.awt.GraphicsEnvironment.isHeadless() && Desktop.isDesktopSupported()
                    && Desktop.getDesktop().isSupported(Desktop.Action.BROWSE)) {
                Desktop.getDesktop().browse(file.toAbsolutePath().toUri());
                return 0;
            }
            // No AWT desktop (servers, most Linux terminals): xdg-open is what the desktop would call.
            Process p = new ProcessBuilder("xdg-open", file.toAbsolutePath().toString()).inheritIO().start();
            return p.waitFor() == 0 ? 0 : fail(file, err);
        } catch (IOException e) {
            return fail(file, err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(file, err);
        }
    }

    private static int fail(Path file, java.io.PrintWriter err) {
        err.println("culprit report: cannot open a browser here; open " + file.toAbsolutePath().toUri() + " yourself");
        return 1;
    }
}
