package io.culprit.agent.collect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Paths;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.junit.jupiter.api.Test;

/** Where the application's own classes come from, in this test JVM: its classes directories, not its jars. */
class AppPackagesTest {
    @Test
    void aClassesDirectoryIsTheApplicationsAndALibraryJarIsNot() throws Exception {
        String byteBuddyJar = Paths.get(ByteBuddy.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        assertThat(AppPackages.source(AppPackagesTest.class.getProtectionDomain(), null)).isEqualTo(AppPackages.Source.OWN);
        assertThat(AppPackages.source(ByteBuddy.class.getProtectionDomain(), null)).isEqualTo(AppPackages.Source.OTHER);
        // The jar on the command line (java -jar app.jar) is the application's when nothing else is.
        assertThat(AppPackages.source(ByteBuddy.class.getProtectionDomain(), byteBuddyJar)).isEqualTo(AppPackages.Source.MAIN_JAR);
        assertThat(AppPackages.source(String.class.getProtectionDomain(), null)).isEqualTo(AppPackages.Source.OTHER);
    }

    @Test
    void theLoadedClassesGiveTheTestsPackagesAndNoLibrarys() {
        // Loaded here, so that the list holds them whichever tests ran before in this JVM.
        assertThat(acme.RecentOrders.class.getName()).isNotEmpty();
        assertThat(example.shop.RegionRates.class.getName()).isNotEmpty();
        List<String> packages = AppPackages.of(ByteBuddyAgent.install());
        // culprit's own packages are skipped, whatever their code source; JUnit's and Byte Buddy's come from jars.
        assertThat(packages).noneMatch(p -> p.startsWith("io.culprit.agent")).noneMatch(p -> p.startsWith("io.culprit.model")).noneMatch(p -> p.startsWith("org.junit"))
                .noneMatch(p -> p.startsWith("net.bytebuddy")).noneMatch(p -> p.startsWith("java."));
        assertThat(packages).contains("acme", "example.shop");
    }
}
