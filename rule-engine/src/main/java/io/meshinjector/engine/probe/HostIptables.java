package io.meshinjector.engine.probe;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

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
record HostIptables(String backend, String link, Set<String> present, String problem) {

  static final List<String> BINARIES =
      List.of(
          "iptables",
          "iptables-save",
          "iptables-nft",
          "iptables-nft-save",
          "iptables-legacy",
          "iptables-legacy-save");

  static final List<String> DIRS = List.of("/usr/sbin", "/sbin");

  static HostIptables read(HostRoot host) {
    String backend;
    String link;
    try {
      HostRoot.Resolved r = resolveFirst(host, "iptables");
      if (r == null) {
        backend = "absent";
        link = "no iptables in /usr/sbin or /sbin";
      } else {
        backend = backendOf(r);
        link = r.hops().isEmpty() ? r.hostPath() + " (not a link)" : String.join(", ", r.hops());
      }
    } catch (HostReadException e) {
      backend = "unknown";
      link = e.getMessage();
    }

    if (!anyDirVisible(host)) {
      return new HostIptables(
          backend, link, null, "neither /usr/sbin nor /sbin is visible under the host root");
    }
    Set<String> present = new TreeSet<>();
    try {
      for (String bin : BINARIES) {
        for (String dir : DIRS) {
          if (host.isFile(dir + "/" + bin)) {
            present.add(bin);
            break;
          }
        }
      }
    } catch (HostReadException e) {
      return new HostIptables(backend, link, null, e.getMessage());
    }
    return new HostIptables(backend, link, present, null);
  }

  private static HostRoot.Resolved resolveFirst(HostRoot host, String bin)
      throws HostReadException {
    for (String dir : DIRS) {
      try {
        return host.resolve(dir + "/" + bin);
      } catch (HostReadException e) {
        if (!e.missing()) {
          throw e;
        }
      }
    }
    return null;
  }

  /**
   * {@code xtables-nft-multi} is nft; {@code xtables-legacy-multi} and the pre-1.8 {@code
   * xtables-multi} are legacy (seed 003: CentOS 7 links to xtables-multi, RHEL 8 to
   * xtables-nft-multi).
   */
  static String backendOf(HostRoot.Resolved r) {
    String name = r.fileName();
    if (name.contains("nft")) {
      return "nft";
    }
    if (name.contains("legacy") || name.equals("xtables-multi")) {
      return "legacy";
    }
    for (String hop : r.hops()) {
      String target = hop.substring(hop.indexOf(" -> ") + 4);
      if (target.contains("nft")) {
        return "nft";
      }
      if (target.contains("legacy")) {
        return "legacy";
      }
    }
    return "unknown";
  }

  private static boolean anyDirVisible(HostRoot host) {
    for (String dir : DIRS) {
      try {
        host.resolve(dir);
        return true;
      } catch (HostReadException e) {
        // try the next one
      }
    }
    return false;
  }

  boolean has(String binary) {
    return present != null && present.contains(binary);
  }
}
