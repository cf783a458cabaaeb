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
import java.util.StringJoiner;

/**
 * Whether a path or a native sidecar works on a node class, counting unknown as configured.
 *
 * <p>An init path redirects IPv6 too where the pod has IPv6, and then needs the IPv6 key of its
 * mode as well. Which pods have IPv6 is a pod's decision ({@link #forPod}): the init container is
 * rendered once, with or without the mesh's IPv6 switch, whichever node the pod lands on. Where no
 * pod is being decided ({@code check}, the node metrics) each node counts with its own pods.
 */
public final class Viability {
  private final CapabilitiesConfig config;

  /** The pod's IPv6, or null: each node's own {@code ipv6-pods} verdict. */
  private final Boolean podIpv6;

  public Viability(CapabilitiesConfig config) {
    this(config, null);
  }

  private Viability(CapabilitiesConfig config, Boolean podIpv6) {
    this.config = config;
    this.podIpv6 = podIpv6;
  }

  /** The same, for a pod whose redirect does ({@code ipv6}) or does not cover IPv6. */
  public Viability forPod(boolean ipv6) {
    return new Viability(config, ipv6);
  }

  /**
   * The capabilities a path needs on a node whose pods do ({@code ipv6}) or do not have IPv6: the
   * cni path needs the plugin (which redirects IPv6 as its own configuration says); an init path
   * its mode's key, and with IPv6 the mode's IPv6 key too ({@code nftables} covers both with one).
   */
  public List<CapabilityKey> keys(PathOption path, boolean ipv6) {
    if (path.redirect() == Redirect.CNI) {
      return List.of(CapabilityKey.CNI);
    }
    CapabilityKey v4 = path.mode().capability(config.plainBackend());
    CapabilityKey v6 = path.mode().ipv6Capability(config.plainBackend());
    return ipv6 && v6 != v4 ? List.of(v4, v6) : List.of(v4);
  }

  /** The capabilities {@code path} needs where this viability decides IPv6 for every node. */
  public List<CapabilityKey> keys(PathOption path) {
    return keys(path, Boolean.TRUE.equals(podIpv6));
  }

  public boolean viable(PathOption path, NodeCapabilities caps) {
    for (CapabilityKey key : keys(path, ipv6(caps))) {
      if (!counts(key, caps.verdict(key))) {
        return false;
      }
    }
    return true;
  }

  public boolean nativeSidecar(NodeCapabilities caps) {
    return counts(CapabilityKey.NATIVE_SIDECAR, caps.verdict(CapabilityKey.NATIVE_SIDECAR));
  }

  /** Whether the node's pods count as having IPv6 ({@code ipv6-pods}, unknown as configured). */
  public boolean ipv6Pods(NodeCapabilities caps) {
    return counts(CapabilityKey.IPV6_PODS, caps.verdict(CapabilityKey.IPV6_PODS));
  }

  /** Whether the node counts as Linux ({@code os}; unknown counts as Linux). */
  public boolean linux(NodeCapabilities caps) {
    return counts(CapabilityKey.OS, caps.verdict(CapabilityKey.OS));
  }

  private boolean ipv6(NodeCapabilities caps) {
    return podIpv6 != null ? podIpv6 : ipv6Pods(caps);
  }

  /** Whether an unknown verdict of this key counts as the positive one. */
  public boolean assumed(CapabilityKey key) {
    return switch (key) {
      case IPTABLES_LEGACY, IPTABLES_NFT, IP6TABLES_LEGACY, IP6TABLES_NFT, NFTABLES ->
          config.assumeUnknown().iptables();
      case CNI -> config.assumeUnknown().cni();
      case NATIVE_SIDECAR -> config.assumeUnknown().nativeSidecar();
      case IPV6_PODS -> config.assumeUnknown().ipv6Pods();
      // every kubelet labels its node's OS: a node nobody knows the OS of is taken for Linux
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

  /**
   * What a class lacks for the path, e.g. {@code iptables-legacy unavailable (inference: ...)};
   * with IPv6, each key that does not count, the IPv6 one named with the pods' verdict.
   */
  public String lack(PathOption path, NodeCapabilities caps) {
    StringJoiner j = new StringJoiner(", ");
    List<CapabilityKey> keys = keys(path, ipv6(caps));
    boolean ipv6Lacks = false;
    for (int i = 0; i < keys.size(); i++) {
      CapabilityKey key = keys.get(i);
      if (!counts(key, caps.verdict(key))) {
        SourcedVerdict v = caps.get(key);
        j.add(key.id() + " " + v);
        ipv6Lacks |= i > 0;
      }
    }
    if (j.length() == 0) {
      // not lacking: say what the path reads, as the callers list it
      return keys.get(0).id() + " " + caps.get(keys.get(0));
    }
    if (ipv6Lacks) {
      // the IPv6 key is needed only because the pods have IPv6: say why it counts
      j.add("the pods have IPv6 (ipv6-pods " + caps.get(CapabilityKey.IPV6_PODS) + ")");
    }
    return j.toString();
  }

  /** The fix for a path's IPv6 half, named where a pod has IPv6. */
  public static String ipv6Fix(PathOption path) {
    if (path.redirect() == Redirect.CNI || path.mode() == IptablesMode.NFTABLES) {
      return "";
    }
    return path.mode() == IptablesMode.LEGACY
        ? "load ip6_tables and ip6table_nat too (nodePrep.extraModules)"
        : "load nf_tables with IPv6 nat (nft_chain_nat) too";
  }

  /** The fix to name in a refusal, per path. */
  public static String fix(PathOption path) {
    if (path.redirect() == Redirect.CNI) {
      return "install the mesh CNI plugin on these nodes (or wait until its DaemonSet is Ready there)";
    }
    if (path.mode() == IptablesMode.LEGACY) {
      return "load the ip_tables and iptable_nat kernel modules (the chart's nodePrep.enabled option does it)";
    }
    if (path.mode() == IptablesMode.NFTABLES) {
      return "load the nf_tables and nft_chain_nat kernel modules and install nft on the node";
    }
    return "load the nf_tables kernel module (the chart's nodePrep.enabled option does it)";
  }
}
