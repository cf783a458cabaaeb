package io.meshinjector.plane;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one real control plane of a test JVM, and its one real node: started by the first class that
 * asks ({@link RealPlane}, {@link RealNodePlane}), kept in JUnit's root store and stopped once,
 * when the run ends. Booting a plane (etcd, the API server, the scheduler, the controller-manager,
 * their binaries checked) and a node (containerd, the images imported, a kubelet Ready) is paid
 * once a run, not once a class; {@link ClusterHygiene} keeps the classes apart.
 *
 * <p>Where this machine can run a real node, the plane is started for one from the first ({@link
 * RealNode#podNetwork()}); the node itself comes up only when the first class that needs it starts,
 * and {@link PlaneClassOrder} runs those classes after all others, so no chart installed by a
 * plane-only class ever has a kubelet run its pods. After a crash of the JVM, the next run's plane
 * and node clean up what the dead one left, as {@link KubePlane} and {@link RealNode} do.
 */
public final class SharedPlane implements AutoCloseable {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(SharedPlane.class);

  private final Path shared;
  private final Path work;
  private final KubePlane plane;
  private final Optional<String> nodeUnavailable;
  private RealNode node;

  private SharedPlane(Path shared, Path work, KubePlane plane, Optional<String> nodeUnavailable) {
    this.shared = shared;
    this.work = work;
    this.plane = plane;
    this.nodeUnavailable = nodeUnavailable;
  }

  /** The resource lock of the classes on the plane without a node: they run one at a time. */
  public static final String PLANE_LANE = "mesh-injector.plane-lane";

  /** The resource lock of the classes on the plane with the real node: one at a time. */
  public static final String NODE_LANE = "mesh-injector.node-lane";

  /**
   * Whether the run's classes run in two lanes at once (failsafe's configuration parameters, {@code
   * -Dit.lanes=false} to run them one after another, docs/testing.md).
   */
  static boolean lanes(ExtensionContext context) {
    return lanes(context::getConfigurationParameter);
  }

  /** The same, from any of JUnit's views of the configuration parameters. */
  static boolean lanes(java.util.function.Function<String, Optional<String>> parameters) {
    return parameters
        .apply("junit.jupiter.execution.parallel.enabled")
        .map(Boolean::parseBoolean)
        .orElse(false);
  }

  /**
   * The plane of a class, started now if no class of its lane has asked before. In one lane, every
   * class shares one plane, the real node's. In two ({@link #lanes}), the classes that need no node
   * get a plane of their own without one, and run beside those on the node: each plane holds one
   * class at a time ({@link #PLANE_LANE}, {@link #NODE_LANE}), so {@link ClusterHygiene} still
   * keeps the classes of a plane apart, and no kubelet ever runs the pods of a plane-only class.
   */
  static SharedPlane of(ExtensionContext context, Path shared, boolean needsNode) {
    boolean ownPlane = lanes(context) && !needsNode;
    return context
        .getRoot()
        .getStore(STORE)
        .computeIfAbsent(
            ownPlane ? PLANE_LANE : NODE_LANE,
            k ->
                start(
                    shared,
                    ownPlane ? "plane-only lane" : "node lane",
                    ownPlane
                        ? Optional.of("the plane-only lane has none")
                        : RealNode.unavailable(shared)),
            SharedPlane.class);
  }

  /** The lane lock {@code testClass} must hold when the lanes run at once. */
  static String laneOf(Class<?> testClass) {
    return PlaneClassOrder.onRealNode(testClass) ? NODE_LANE : PLANE_LANE;
  }

  private static SharedPlane start(Path shared, String lane, Optional<String> nodeUnavailable) {
    Path work = RealPlane.work().resolve("kube-api-test");
    try {
      long start = System.nanoTime();
      KubePlane plane =
          KubePlane.start(shared, work, nodeUnavailable.isEmpty() ? RealNode.podNetwork() : null);
      System.out.printf(
          "SharedPlane: the %s's plane up in %d ms%s%n",
          lane,
          (System.nanoTime() - start) / 1_000_000,
          nodeUnavailable.map(why -> " (no real node here: " + why + ")").orElse(""));
      return new SharedPlane(shared, work, plane, nodeUnavailable);
    } catch (Exception e) {
      throw new IllegalStateException("the shared real plane did not start: " + e, e);
    }
  }

  public KubePlane plane() {
    return plane;
  }

  /**
   * The real node, started (the project's image imported when its tarball is there) by the first
   * class that needs it.
   */
  synchronized RealNode node() throws Exception {
    if (nodeUnavailable.isPresent()) {
      throw new IllegalStateException("no real node here: " + nodeUnavailable.get());
    }
    if (node == null) {
      long start = System.nanoTime();
      Path image = RealNodePlane.imageTarball();
      node =
          RealNode.start(
              plane,
              shared,
              work.resolve("real-node"),
              Files.isRegularFile(image) ? List.of(image) : List.of());
      System.out.printf(
          "SharedPlane: the run's real node %s Ready in %d ms%n",
          RealNode.NAME, (System.nanoTime() - start) / 1_000_000);
    }
    return node;
  }

  /** The Nodes that belong to the run, not to a class: the real node once it is up. */
  synchronized Set<String> sharedNodes() {
    return node == null ? Set.of() : Set.of(RealNode.NAME);
  }

  @Override
  public synchronized void close() {
    if (node != null) {
      node.close();
    }
    plane.close();
  }
}
