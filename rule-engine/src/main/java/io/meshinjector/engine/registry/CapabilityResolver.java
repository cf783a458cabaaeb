package io.meshinjector.engine.registry;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.NodeInference;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.capability.SourcedVerdict;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.config.CapabilityOverride;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * Merges the sources of a node's verdicts in the architecture's precedence: operator override,
 * probe (until it expires), live CNI readiness, inference from the Node, unknown. An {@code
 * unknown} from a higher source does not hide a lower source that knows.
 */
public final class CapabilityResolver {
  private final CapabilitiesConfig config;

  public CapabilityResolver(CapabilitiesConfig config) {
    this.config = config;
  }

  /** What the resolver reads of a Node. */
  public record NodeDescription(
      Map<String, String> labels, String osImage, String kubeletVersion) {}

  /**
   * @param probe the node's NodeCapability status, or null
   * @param cniPodReady whether the mesh CNI DaemonSet's pod is Ready on the node
   */
  public Resolved resolve(
      NodeDescription node, NodeCapabilityStatus probe, boolean cniPodReady, Instant now) {
    Map<CapabilityKey, SourcedVerdict> out = new EnumMap<>(CapabilityKey.class);
    Map<CapabilityKey, SourcedVerdict> inferred =
        NodeInference.infer(node.osImage(), node.kubeletVersion());
    Instant expiry = Instant.MAX;
    boolean probeFresh = false;
    if (probe != null) {
      Instant probeExpiry = probe.observedAt().plus(config.probeTtl());
      probeFresh = now.isBefore(probeExpiry);
      if (probeFresh) {
        expiry = probeExpiry;
      }
    }
    for (CapabilityKey key : CapabilityKey.values()) {
      out.put(key, resolveKey(key, node, probe, probeFresh, cniPodReady, inferred));
    }
    return new Resolved(new NodeCapabilities(out), expiry);
  }

  private SourcedVerdict resolveKey(
      CapabilityKey key,
      NodeDescription node,
      NodeCapabilityStatus probe,
      boolean probeFresh,
      boolean cniPodReady,
      Map<CapabilityKey, SourcedVerdict> inferred) {
    for (CapabilityOverride o : config.overrides()) {
      Verdict v = o.set().get(key);
      if (v != null && o.matches(node.labels())) {
        return new SourcedVerdict(v, Source.OVERRIDE, o.describe());
      }
    }
    String unknownWhy = "no source knows";
    if (probe != null) {
      Verdict v = probe.capabilities().get(key);
      if (!probeFresh) {
        unknownWhy = "probe verdict from " + probe.observedAt() + " is older than probeTtl";
      } else if (v != null && v != Verdict.UNKNOWN) {
        String reason = probe.facts().get("reason." + key.id());
        return new SourcedVerdict(
            v,
            Source.PROBE,
            "observed " + probe.observedAt() + (reason == null ? "" : ", " + reason));
      } else if (v == Verdict.UNKNOWN) {
        String reason = probe.facts().get("reason." + key.id());
        unknownWhy = "probe could not tell" + (reason == null ? "" : ": " + reason);
      }
    }
    if (key == CapabilityKey.CNI && cniPodReady) {
      return new SourcedVerdict(
          Verdict.READY,
          Source.LIVE,
          "CNI DaemonSet pod Ready in " + config.cniDaemonSet().namespace());
    }
    SourcedVerdict inf = inferred.get(key);
    if (inf != null) {
      return inf;
    }
    return SourcedVerdict.unknown(unknownWhy);
  }

  /**
   * @param expiresAt when a probe verdict in this result expires and the node must be resolved
   *     again
   */
  public record Resolved(NodeCapabilities capabilities, Instant expiresAt) {}
}
