package io.culprit.cli.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Finds {@code culprit-agent.jar}: an explicit override, else the copy embedded in culprit.jar
 * (extracted once per content hash into an owner-only cache), else the build tree.
 */
public final class AgentJar {
    static final String RESOURCE = "/culprit/culprit-agent.jar";

    private AgentJar() {
    }

    public static Path locate() {
        String override = System.getProperty("culprit.agent.jar", System.getenv("CULPRIT_AGENT_JAR"));
        if (override != null) return existing(Path.of(override));
        try (InputStream in = AgentJar.class.getResourceAsStream(RESOURCE)) {
            if (in != null) return extract(in.readAllBytes());
        } catch (IOException e) {
            throw new CulpritException("cannot extract the embedded agent: " + e.getMessage());
        }
        String home = System.getenv("CULPRIT_HOME");
        if (home != null) return existing(Path.of(home, "agent", "target", "culprit-agent.jar"));
        throw new CulpritException("culprit-agent.jar not found: set CULPRIT_AGENT_JAR or rebuild with ./culprit");
    }

    private static Path existing(Path p) {
        if (!Files.isRegularFile(p)) throw new CulpritException("agent jar not found: " + p);
        return p.toAbsolutePath();
    }

    private static Path extract(byte[] jar) throws IOException {
        Path dir = Path.of(System.getProperty("user.home"), ".culprit", "lib", sha256(jar).substring(0, 16));
        Path target = dir.resolve("culprit-agent.jar");
        if (Files.isRegularFile(target) && Files.size(target) == jar.length) return target;
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path tmp = Files.createTempFile(dir, "agent", ".tmp");
        Files.write(tmp, jar);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }

    private static String sha256(byte[] b) {
        try {
            StringBuilder sb = new StringBuilder();
            for (byte x : MessageDigest.getInstance("SHA-256").digest(b)) sb.append(String.format("%02x", x));
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
