package io.meshinjector.plane;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The run's real control plane ({@link SharedPlane}) for a test class ({@code @RegisterExtension
 * static final RealPlane}): the class starts only on a plane holding no cluster-wide object of
 * another class, and everything it made is removed when it ends ({@link ClusterHygiene}). Where the
 * binaries are not beside the clone (a user's clone without {@code ../shared}), every test of the
 * class is skipped with one line saying why.
 */
public class RealPlane implements BeforeAllCallback, AfterAllCallback {
  private SharedPlane shared;
  private String owner;
  private ClusterHygiene.Snapshot before;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Optional<Path> binaries = KubePlane.sharedBinaries();
    Optional<String> why =
        binaries.isEmpty()
            ? Optional.of(
                "../shared/kube-api-test/k8s/"
                    + KubePlane.VERSION
                    + "-linux-amd64 (the Kubernetes binaries) is not beside this clone")
            : unavailable(binaries.get());
    if (why.isPresent()) {
      String line = skipPrefix() + why.get();
      System.err.println(context.getDisplayName() + ": " + line);
      Assumptions.abort(line);
    }
    Class<?> testClass = context.getRequiredTestClass();
    if (SharedPlane.lanes(context)) {
      String lane = SharedPlane.laneOf(testClass);
      ResourceLock lock = testClass.getAnnotation(ResourceLock.class);
      if (lock == null || !lane.equals(lock.value())) {
        throw new IllegalStateException(
            testClass.getSimpleName()
                + " runs on the real plane while the lanes run at once: annotate it"
                + " @ResourceLock(SharedPlane."
                + (lane.equals(SharedPlane.NODE_LANE) ? "NODE_LANE" : "PLANE_LANE")
                + "), so no other class of its plane runs beside it");
      }
    }
    shared = SharedPlane.of(context, binaries.get(), needsNode());
    owner = testClass.getSimpleName();
    started(shared);
    before =
        ClusterHygiene.assertClean(
            admin(), plane().adminKubeconfigFile(), shared.sharedNodes(), owner);
  }

  /** Whether the class needs the plane with the real node. */
  boolean needsNode() {
    return false;
  }

  /** Why this class cannot run here beyond the binaries, or empty. */
  Optional<String> unavailable(Path binaries) {
    return Optional.empty();
  }

  String skipPrefix() {
    return "real control plane tests skipped: ";
  }

  /** What the class needs of the run besides the plane, once the plane is up. */
  void started(SharedPlane shared) throws Exception {}

  static Path work() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    return root.resolve("tests/target");
  }

  public KubePlane plane() {
    return shared.plane();
  }

  /** The plane's client with the admin's credentials. */
  public KubernetesClient admin() {
    return shared.plane().admin();
  }

  /** A folder of the test class's own, for files and logs. */
  public Path dir(String name) throws IOException {
    return Files.createDirectories(plane().dir().resolve(owner).resolve(name));
  }

  /**
   * {@code bin/mesh-injector ARGS} as the cluster's admin runs it, its output kept in {@link
   * #dir}{@code (folder)}.
   */
  public Cli.Result meshInjector(String folder, Duration limit, String... args)
      throws IOException, InterruptedException {
    return Cli.meshInjector(dir(folder), plane().adminKubeconfigFile(), limit, args);
  }

  /** The plane's {@code kubectl ARGS} as the cluster's admin runs it, its output kept likewise. */
  public Cli.Result kubectl(String folder, Duration limit, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(plane().kubectl().toString()));
    command.addAll(List.of(args));
    return Cli.run(dir(folder), plane().adminKubeconfigFile(), command, limit);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (before != null) {
      long start = System.nanoTime();
      Set<String> sharedNodes = shared.sharedNodes();
      ClusterHygiene.restore(admin(), plane().adminKubeconfigFile(), before, sharedNodes);
      System.out.printf(
          "%s: the shared plane restored in %d ms%n",
          owner, (System.nanoTime() - start) / 1_000_000);
    }
  }
}
