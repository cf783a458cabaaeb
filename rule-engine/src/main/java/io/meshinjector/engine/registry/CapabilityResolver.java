package io.meshinjector.engine.registry;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.NodeInference;
import io.meshinjector.engine.capability.PodCidrs;
import io.meshinjector.engine.capability.ProbeSource;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.capability.SourcedVerdict;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.config.CapabilityOverride;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * Merges the sources of a node's verdicts, highest precedence first: operator override, probe
 * (until it expires), live CNI readiness, inference from the Node, unknown. An {@code unknown} from
 * a higher source does not hide a lower source that knows.
 */
public final class CapabilityResolver {
  /**
   * How far ahead of this replica's clock a probe's {@code observedAt} may be and still count: node
   * clocks drift a little. A report from further ahead would never expire, so whoever wrote it
   * could pin a node's verdicts; it counts as unknown instead.
   */
  public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);

  private final CapabilitiesConfig config;
  private final boolean trustFutureReports;

  /**
   * @param trustFutureReports take a report from ahead of the clock as its author dated it: only
   *     for a snapshot the operator supplies (a {@code --cluster} file), never for what the
   *     cluster's API serves
   */
  public CapabilityResolver(CapabilitiesConfig config, boolean trustFutureReports) {
    this.config = config;
    this.trustFutureReports = trustFutureReports;
  }

  /** What the resolver reads of a Node. */
  public record NodeDescription(
      Map<String, String> labels,
      String osImage,
      String kubeletVersion,
      String operatingSystem,
      PodCidrs podCidrs) {}

  /**
   * @param probe the node's NodeCapability status, or null
   * @param cniPodReady whether the mesh CNI DaemonSet's pod is Ready on the node
   */
  public Resolved resolve(
      NodeDescription node, NodeCapabilityStatus probe, boolean cniPodReady, Instant now) {
    Map<CapabilityKey, SourcedVerdict> out = new EnumMap<>(CapabilityKey.class);
    Map<CapabilityKey, SourcedVerdict> inferred =
        NodeInference.infer(
            node.osImage(), node.kubeletVersion(), node.operatingSystem(), node.podCidrs());
    Instant expiry = Instant.MAX;
    String unusable = null;
    if (probe != null) {
      if (!trustFutureReports && probe.observedAt().isAfter(now.plus(MAX_CLOCK_SKEW))) {
        // usable once the clocks' gap is within the skew allowed: resolve the node again then
        expiry = probe.observedAt().minus(MAX_CLOCK_SKEW);
        unusable =
            "probe verdict observedAt "
                + probe.observedAt()
                + " is in the future (more than "
                + MAX_CLOCK_SKEW.toMinutes()
                + "m of clock skew), so it is not used";
      } else {
        Instant observed = probe.observedAt();
        Instant probeExpiry =
            observed.isAfter(Instant.MAX.minus(config.probeTtl()))
                ? Instant.MAX
                : observed.plus(config.probeTtl());
        if (now.isBefore(probeExpiry)) {
          expiry = probeExpiry;
        } else {
          unusable = "probe verdict from " + probe.observedAt() + " is older than probeTtl";
        }
      }
    }
    for (CapabilityKey key : CapabilityKey.values()) {
      out.put(key, resolveKey(key, node, probe, unusable, cniPodReady, inferred));
    }
    return new Resolved(new NodeCapabilities(out), expiry);
  }

  private SourcedVerdict resolveKey(
      CapabilityKey key,
      NodeDescription node,
      NodeCapabilityStatus probe,
      String unusable,
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
      if (unusable != null) {
        unknownWhy = unusable;
      } else if (v != null && v != Verdict.UNKNOWN) {
        String reason = probe.facts().get("reason." + key.id());
        // say how the probe knew: a verdict it proved by running iptables reads differently from
        // one it inferred from the node's files
        String how = probe.source(key).map(s -> ", " + howMeasured(s)).orElse("");
        return new SourcedVerdict(
            v,
            Source.PROBE,
            "observed " + probe.observedAt() + how + (reason == null ? "" : ", " + reason));
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

  private static String howMeasured(ProbeSource source) {
    return switch (source) {
      case ACTIVE -> "active check";
      case FILES -> "from the node's files";
    };
  }

  /**
   * @param expiresAt when a probe verdict in this result expires and the node must be resolved
   *     again
   */
  public record Resolved(NodeCapabilities capabilities, Instant expiresAt) {}
}
