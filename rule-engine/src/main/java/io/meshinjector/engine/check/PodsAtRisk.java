package io.meshinjector.engine.check;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.rules.Viability;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Running injected pods whose recorded redirect path no longer works on their node: they run now,
 * but a restart there (an eviction, a crash of the pod sandbox, a node reboot) would fail in the
 * init container or the validator.
 */
public final class PodsAtRisk {
  /**
   * An injected pod as the check reads it.
   *
   * @param decision the pod's {@code mesh-injector.io/decision} annotation, e.g. {@code init/nft
   *     native-sidecar await}
   */
  public record InjectedPod(String namespace, String name, String node, String decision) {}

  /** A pod at risk, the path its decision recorded and what its node lacks for it. */
  public record AtRisk(InjectedPod pod, PathOption path, String lack) {}

  private PodsAtRisk() {}

  public static List<AtRisk> find(List<InjectedPod> pods, NodeIndex index, Viability viability) {
    List<AtRisk> out = new ArrayList<>();
    for (InjectedPod pod : pods) {
      Optional<PathOption> path = recordedPath(pod.decision());
      // a pod on a node that is gone will not restart there
      Optional<NodeCapabilities> caps =
          pod.node() == null ? Optional.empty() : index.capabilities(pod.node());
      if (path.isEmpty() || caps.isEmpty()) {
        continue;
      }
      if (!viability.linux(caps.get())) {
        // the proxy and its init containers are Linux programs: the pod cannot run as injected
        out.add(
            new AtRisk(
                pod,
                path.get(),
                "the node runs Windows (os " + caps.get().get(CapabilityKey.OS) + ")"));
      } else if (!viability.viable(path.get(), caps.get())) {
        out.add(new AtRisk(pod, path.get(), viability.lack(path.get(), caps.get())));
      }
    }
    return out;
  }

  /** The path at the start of a decision annotation; empty when it names none (not injected). */
  static Optional<PathOption> recordedPath(String decision) {
    if (decision == null || decision.isBlank()) {
      return Optional.empty();
    }
    String first = decision.trim().split("\\s+", 2)[0];
    try {
      return Optional.of(PathOption.parse(first));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
