package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplicationPackagesTest {

    @Test
    void nestedPackagesFoldIntoTheirParents() {
        assertThat(ApplicationPackages.folded(new TreeSet<>(List.of("com.acme.shop", "com.acme.shop.web", "com.acme.shopping", "com.acme.shop.web.dto", "org.x"))))
                .containsExactly("com.acme.shop", "com.acme.shopping", "org.x");
    }

    @Test
    void theMainJarIsTheCommandsFirstWordWhenItIsAJar() {
        assertThat(ApplicationPackages.mainJar("/srv/app.jar --server.port=8080")).isEqualTo(Paths.get("/srv/app.jar").toString());
        assertThat(ApplicationPackages.mainJar("com.acme.Main --flag")).isNull();
        assertThat(ApplicationPackages.mainJar("")).isNull();
    }

    @Test
    void aMainClassNamesItsPackageButALaunchersDoesNot() {
        // Jib's images: java -cp /app/resources:/app/classes:/app/libs/* com.acme.shop.ShopApplication
        assertThat(ApplicationPackages.ofCommand("com.acme.shop.ShopApplication --spring.profiles.active=prod")).containsExactly("com.acme.shop");
        assertThat(ApplicationPackages.ofCommand("org.springframework.boot.loader.launch.JarLauncher")).isEmpty();
        assertThat(ApplicationPackages.ofCommand("Main")).isEmpty();
        assertThat(ApplicationPackages.ofCommand("")).isEmpty();
        assertThat(ApplicationPackages.ofCommand(null)).isEmpty();
    }

    @Test
    void aSpringBootJarHereGivesThePackagesOfItsOwnClasses(@TempDir Path dir) throws Exception {
        Path jar = jar(dir.resolve("shop.jar"), "org.springframework.boot.loader.launch.JarLauncher",
                "org/springframework/boot/loader/launch/JarLauncher.class", "BOOT-INF/classes/com/acme/shop/ShopApplication.class",
                "BOOT-INF/classes/com/acme/shop/web/OrderController.class", "BOOT-INF/classes/com/acme/billing/Invoice.class",
                "BOOT-INF/classes/application.yml", "BOOT-INF/lib/modelmapper-3.2.4.jar");
        assertThat(ApplicationPackages.ofCommand(jar + " --server.port=8080")).containsExactly("com.acme.billing", "com.acme.shop");
    }

    @Test
    void aPlainJarGivesItsMainClassesPackageAndAMissingJarNothing(@TempDir Path dir) throws Exception {
        Path jar = jar(dir.resolve("tool.jar"), "org.example.tool.Main", "org/example/tool/Main.class", "com/google/gson/Gson.class");
        assertThat(ApplicationPackages.ofCommand(jar.toString())).containsExactly("org.example.tool");
        assertThat(ApplicationPackages.ofCommand(dir.resolve("recorded-elsewhere.jar") + " --x")).isEmpty();
    }

    @Test
    void ofAShadedJarsLoadedPackagesOnlyTheMainClassesOrganisationIsTheApplications(@TempDir Path dir) throws Exception {
        Path jar = jar(dir.resolve("billing.jar"), "com.acme.billing.BillingApplication", "com/acme/billing/BillingApplication.class",
                "org/eclipse/jetty/server/Server.class", "org/glassfish/jersey/server/ApplicationHandler.class");
        TreeSet<String> loaded = new TreeSet<>(List.of("com.acme.billing", "com.acme.billing.db", "com.acme.common.money",
                "org.eclipse.jetty.server", "org.glassfish.jersey.server", "org.jdbi.v3.core", "io.dropwizard.core"));
        assertThat(ApplicationPackages.ofLoadedFromJar(loaded, jar.toString())).containsExactly("com.acme.billing", "com.acme.common.money");
        // A jar that tells nothing of its own (gone since, or a launcher's): every package loaded from it.
        assertThat(ApplicationPackages.ofLoadedFromJar(loaded, dir.resolve("gone.jar").toString())).hasSize(6);
        assertThat(ApplicationPackages.organisation("com.github.someone.tool.cli")).isEqualTo("com.github.someone.");
        assertThat(ApplicationPackages.organisation("app")).isEqualTo("app.");
    }

    private static Path jar(Path path, String mainClass, String... entries) throws Exception {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        try (OutputStream out = Files.newOutputStream(path); JarOutputStream j = new JarOutputStream(out, m)) {
            for (String e : entries) {
                j.putNextEntry(new JarEntry(e));
                j.write(new byte[] {0});
                j.closeEntry();
            }
        }
        return path;
    }
}
