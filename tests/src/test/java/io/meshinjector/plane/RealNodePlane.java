package io.meshinjector.plane;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real plane with one real node ({@link RealNode}) and the project's image imported into its
 * containerd, for a test class ({@code @RegisterExtension static final RealNodePlane}). Skipped,
 * with one line saying why, where the Kubernetes binaries are not beside the clone, where this
 * machine cannot run a node (not root, Debian's packages missing), or where the image tarball was
 * not built (the {@code image-tar} profile; {@code .ci/run} builds it once per run).
 */
public final class RealNodePlane implements BeforeAllCallback, AfterAllCallback {
  private final boolean projectImage;
  private KubePlane plane;
  private RealNode node;

  /** With the project's image imported into the node's containerd. */
  public RealNodePlane() {
    this(true);
  }

  /**
   * {@code projectImage} false: a test class that runs the product on the host (its webhook and
   * probe processes) and only its test pods on the node skips the image's import and its build.
   */
  public RealNodePlane(boolean projectImage) {
    this.projectImage = projectImage;
  }

  /** Jib's tarball of the image, as the webhook module's image-tar profile writes it. */
  public static Path imageTarball() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    return Path.of(
        System.getProperty(
            "image.tarball", root.resolve("webhook/target/mesh-injector-image.tar").toString()));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Optional<Path> shared = KubePlane.sharedBinaries();
    Optional<String> why =
        shared.isEmpty()
            ? Optional.of(
                "../shared/kube-api-test/k8s/"
                    + KubePlane.VERSION
                    + "-linux-amd64 (the Kubernetes binaries) is not beside this clone")
            : RealNode.unavailable(shared.get())
                .or(
                    () ->
                        !projectImage || Files.isRegularFile(imageTarball())
                            ? Optional.empty()
                            : Optional.of(
                                "no image tarball at "
                                    + imageTarball()
                                    + " (./mvnw -B -Pimage-tar -pl webhook -am package)"));
    if (why.isPresent()) {
      String line = "real node tests skipped: " + why.get();
      System.err.println(context.getDisplayName() + ": " + line);
      Assumptions.abort(line);
    }
    Path work = RealPlane.work().resolve("kube-api-test");
    plane = KubePlane.start(shared.get(), work, RealNode.podNetwork());
    node =
        RealNode.start(
            plane,
            shared.get(),
            work.resolve("real-node"),
            projectImage ? List.of(imageTarball()) : List.of());
  }

  public KubePlane plane() {
    return plane;
  }

  public RealNode node() {
    return node;
  }

  /** A folder of the test class's own, for files and logs. */
  public Path dir(String name) throws java.io.IOException {
    return Files.createDirectories(plane.dir().resolve(name));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (node != null) {
      node.close();
    }
    if (plane != null) {
      plane.close();
    }
  }
}
