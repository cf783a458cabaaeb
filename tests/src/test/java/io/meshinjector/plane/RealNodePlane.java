package io.meshinjector.plane;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The run's real plane with its one real node ({@link RealNode}, the project's image imported into
 * its containerd), for a test class ({@code @RegisterExtension static final RealNodePlane}); the
 * node starts with the first such class and stays for the rest of the run ({@link SharedPlane}).
 * Skipped, with one line saying why, where the Kubernetes binaries are not beside the clone, where
 * this machine cannot run a node (not root, Debian's packages missing), or where a class that runs
 * the image finds no tarball (the default {@code verify} builds it once, before the integration
 * tests, where the Temurin 25 JDK is; alone, the {@code image-tar} profile).
 */
public final class RealNodePlane extends RealPlane {
  private final boolean projectImage;
  private RealNode node;

  /** A class that runs the project's image on the node. */
  public RealNodePlane() {
    this(true);
  }

  /**
   * {@code projectImage} false: a class that runs the product on the host (its webhook and probe
   * processes) and only its test pods on the node needs no image tarball.
   */
  public RealNodePlane(boolean projectImage) {
    this.projectImage = projectImage;
  }

  /** Jib's tarball of the image, as the webhook module's build writes it (docs/image.md). */
  public static Path imageTarball() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    return Path.of(
        System.getProperty(
            "image.tarball", root.resolve("webhook/target/mesh-injector-image.tar").toString()));
  }

  @Override
  Optional<String> unavailable(Path binaries) {
    return RealNode.unavailable(binaries)
        .or(
            () ->
                !projectImage || Files.isRegularFile(imageTarball())
                    ? Optional.empty()
                    : Optional.of(
                        "no image tarball at "
                            + imageTarball()
                            + " (./mvnw -B -Pimage-tar -pl webhook -am package)"));
  }

  @Override
  boolean needsNode() {
    return true;
  }

  @Override
  String skipPrefix() {
    return "real node tests skipped: ";
  }

  @Override
  void started(SharedPlane shared) throws Exception {
    node = shared.node();
  }

  public RealNode node() {
    return node;
  }
}
