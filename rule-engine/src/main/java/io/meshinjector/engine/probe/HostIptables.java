package io.meshinjector.engine.probe;

import java.util.List;
import java.util.Set;

/**
 * The node's own iptables: which backend {@code iptables} is, and which of the binaries a CNI
 * plugin runs through nsenter exist. The CNI plugin executes these host binaries, so a missing one
 * is the seed failure {@code plugin type="linkerd-cni" failed (add): exit status 127}.
 *
 * @param backend {@code nft}, {@code legacy}, {@code absent} or {@code unknown}
 * @param link how {@code /usr/sbin/iptables} resolves, e.g. {@code /usr/sbin/iptables ->
 *     xtables-nft-multi}
 * @param present binaries found in {@code /usr/sbin} or {@code /sbin}; null with problem set
 */
public record HostIptables(String backend, String link, Set<String> present, String problem) {

  /**
   * The host binaries looked for. The IPv6 twins and nft are reported in the {@code hostBinaries}
   * fact only: a pod's init container brings its own, so they decide no verdict of the probe.
   */
  public static final List<String> BINARIES =
      List.of(
          "iptables",
          "iptables-save",
          "iptables-nft",
          "iptables-nft-save",
          "iptables-legacy",
          "iptables-legacy-save",
          "ip6tables",
          "ip6tables-save",
          "ip6tables-nft",
          "ip6tables-nft-save",
          "ip6tables-legacy",
          "ip6tables-legacy-save",
          "nft");

  public static final List<String> DIRS = List.of("/usr/sbin", "/sbin");

  /**
   * {@code xtables-nft-multi} is nft; {@code xtables-legacy-multi} and the pre-1.8 {@code
   * xtables-multi} are legacy (CentOS 7 links to xtables-multi, RHEL 8 to xtables-nft-multi).
   *
   * @param fileName the file {@code /usr/sbin/iptables} finally resolves to
   * @param hops every link followed on the way, as {@code link -> target}
   */
  public static String backendOf(String fileName, List<String> hops) {
    String name = fileName;
    if (name.contains("nft")) {
      return "nft";
    }
    if (name.contains("legacy") || name.equals("xtables-multi")) {
      return "legacy";
    }
    for (String hop : hops) {
      int arrow = hop.indexOf(" -> ");
      String target = arrow < 0 ? hop : hop.substring(arrow + 4);
      if (target.contains("nft")) {
        return "nft";
      }
      if (target.contains("legacy")) {
        return "legacy";
      }
    }
    return "unknown";
  }

  public boolean has(String binary) {
    return present != null && present.contains(binary);
  }
}
