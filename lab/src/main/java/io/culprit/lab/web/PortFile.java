package io.culprit.lab.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/**
 * Writes the port the server bound to into {@code --lab.port-file}. culprit starts the lab on
 * port 0 and reads the port here: picking a free port first and passing it on raced with every
 * other socket the machine opened in between (a CI run lost a demo to "Port … already in use").
 */
@Component
public class PortFile implements ApplicationListener<WebServerInitializedEvent> {

    private final String file;

    public PortFile(@Value("${lab.port-file:}") String file) {
        this.file = file;
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (file.isEmpty()) return;
        Path target = Path.of(file);
        // Written beside and moved into place, so a reader never sees a half-written number.
        Path partial = target.resolveSibling(target.getFileName() + ".partial");
        try {
            Files.writeString(partial, Integer.toString(event.getWebServer().getPort()));
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the port file " + file + ": " + e.getMessage(), e);
        }
    }
}
