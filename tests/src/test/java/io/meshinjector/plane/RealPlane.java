package io.meshinjector.plane;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real control plane for a test class ({@code @RegisterExtension static final RealPlane}).
 * Where the binaries are not beside the clone (a user's clone without {@code ../shared}), every
 * test of the class is skipped with one line saying why.
 */
public final class RealPlane implements BeforeAllCallback, AfterAllCallback {
  private KubePlane plane;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Optional<Path> shared = KubePlane.sharedBinaries();
    if (shared.isEmpty()) {
      String why =
          "real control plane tests skipped: ../shared/kube-api-test/k8s/"
              + KubePlane.VERSION
              + "-linux-amd64 (the Kubernetes binaries) is not beside this clone";
      System.err.println(context.getDisplayName() + ": " + why);
      Assumptions.abort(why);
    }
    plane = KubePlane.start(shared.get(), work().resolve("kube-api-test"));
  }

  static Path work() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    return root.resolve("tests/target");
  }

  public KubePlane plane() {
    return plane;
  }

  /** A folder of the test class's own, for files and logs. */
  public Path dir(String name) throws java.io.IOException {
    return java.nio.file.Files.createDirectories(plane.dir().resolve(name));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (plane != null) {
      plane.close();
    }
  }
}
