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
 * and {@link RealNodeClassesLast} runs those classes after all others, so no chart installed by a
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

  /** The run's plane, started now if no class has asked before. */
  static SharedPlane of(ExtensionContext context, Path shared) {
    return context
        .getRoot()
        .getStore(STORE)
        .computeIfAbsent(SharedPlane.class, k -> start(shared), SharedPlane.class);
  }

  private static SharedPlane start(Path shared) {
    Path work = RealPlane.work().resolve("kube-api-test");
    Optional<String> nodeUnavailable = RealNode.unavailable(shared);
    try {
      long start = System.nanoTime();
      KubePlane plane =
          KubePlane.start(shared, work, nodeUnavailable.isEmpty() ? RealNode.podNetwork() : null);
      System.out.printf(
          "SharedPlane: the run's plane up in %d ms%s%n",
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
