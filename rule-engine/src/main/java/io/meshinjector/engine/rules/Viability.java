package io.meshinjector.engine.rules;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.SourcedVerdict;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Redirect;
import java.util.ArrayList;
import java.util.List;

/** Whether a path or a native sidecar works on a node class, counting unknown as configured. */
public final class Viability {
  private final CapabilitiesConfig config;

  public Viability(CapabilitiesConfig config) {
    this.config = config;
  }

  /** The capability a path needs. */
  public CapabilityKey key(PathOption path) {
    return path.redirect() == Redirect.CNI
        ? CapabilityKey.CNI
        : path.mode().capability(config.plainBackend());
  }

  public boolean viable(PathOption path, NodeCapabilities caps) {
    return counts(key(path), caps.verdict(key(path)));
  }

  public boolean nativeSidecar(NodeCapabilities caps) {
    return counts(CapabilityKey.NATIVE_SIDECAR, caps.verdict(CapabilityKey.NATIVE_SIDECAR));
  }

  /** Whether an unknown verdict of this key counts as the positive one. */
  public boolean assumed(CapabilityKey key) {
    return switch (key) {
      case IPTABLES_LEGACY, IPTABLES_NFT, IP6TABLES_LEGACY, IP6TABLES_NFT, NFTABLES ->
          config.assumeUnknown().iptables();
      case CNI -> config.assumeUnknown().cni();
      case NATIVE_SIDECAR -> config.assumeUnknown().nativeSidecar();
      case IPV6_PODS -> config.assumeUnknown().ipv6Pods();
      case OS -> true;
    };
  }

  private boolean counts(CapabilityKey key, Verdict v) {
    return v == key.positive() || (v == Verdict.UNKNOWN && assumed(key));
  }

  /** The published label values on which the key counts as viable, for a node-affinity term. */
  public List<String> viableLabelValues(CapabilityKey key) {
    List<String> values = new ArrayList<>(2);
    values.add(key.positive().id());
    if (assumed(key)) {
      values.add(Verdict.UNKNOWN.id());
    }
    return values;
  }

  /** What a class lacks for the path, e.g. {@code iptables-legacy unavailable (inference: ...)}. */
  public String lack(PathOption path, NodeCapabilities caps) {
    CapabilityKey key = key(path);
    SourcedVerdict v = caps.get(key);
    return key.id() + " " + v;
  }

  /** The fix to name in a refusal, per path. */
  public static String fix(PathOption path) {
    if (path.redirect() == Redirect.CNI) {
      return "install the mesh CNI plugin on these nodes (or wait until its DaemonSet is Ready there)";
    }
    if (path.mode() == IptablesMode.LEGACY) {
      return "load the ip_tables and iptable_nat kernel modules (the chart's nodePrep.enabled option does it)";
    }
    return "load the nf_tables kernel module (the chart's nodePrep.enabled option does it)";
  }
}
