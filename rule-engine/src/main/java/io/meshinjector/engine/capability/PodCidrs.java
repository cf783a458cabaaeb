package io.meshinjector.engine.capability;

import java.util.ArrayList;
import java.util.List;

/**
 * What a Node's {@code spec.podCIDRs} say about its pods' addresses: only whether one range is
 * IPv6. The ranges themselves are each node's own; the view keeps this much of them in what nodes
 * share, so that a pool's nodes stay one shape.
 */
public enum PodCidrs {
  /** No pod CIDR is set: the network plugin assigns addresses some other way, or none says. */
  UNSET,
  /** IPv4 ranges only. */
  IPV4_ONLY,
  /** At least one IPv6 range: the node's pods get IPv6 addresses. */
  WITH_IPV6;

  /**
   * @param podCidrs {@code spec.podCIDRs}, or null
   * @param podCidr {@code spec.podCIDR}, the one-range field older API servers fill, or null
   */
  public static PodCidrs of(List<String> podCidrs, String podCidr) {
    List<String> all = new ArrayList<>();
    if (podCidrs != null) {
      all.addAll(podCidrs);
    }
    if (podCidr != null) {
      all.add(podCidr);
    }
    all.removeIf(c -> c == null || c.isBlank());
    if (all.isEmpty()) {
      return UNSET;
    }
    // an IPv6 range is written with colons; an IPv4 one never has any
    return all.stream().anyMatch(c -> c.indexOf(':') >= 0) ? WITH_IPV6 : IPV4_ONLY;
  }
}
