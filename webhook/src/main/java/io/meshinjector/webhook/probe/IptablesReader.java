package io.meshinjector.webhook.probe;

import io.meshinjector.engine.probe.HostIptables;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the node's own iptables: where {@code iptables} resolves to, and which of the binaries a
 * CNI plugin runs through nsenter exist in {@code /usr/sbin} or {@code /sbin}.
 */
final class IptablesReader {
  private IptablesReader() {}

  static HostIptables read(HostRoot host) {
    String backend;
    String link;
    try {
      HostRoot.Resolved r = resolveFirst(host, "iptables");
      if (r == null) {
        backend = "absent";
        link = "no iptables in /usr/sbin or /sbin";
      } else {
        backend = HostIptables.backendOf(r.fileName(), r.hops());
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
      for (String bin : HostIptables.BINARIES) {
        for (String dir : HostIptables.DIRS) {
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
    for (String dir : HostIptables.DIRS) {
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

  private static boolean anyDirVisible(HostRoot host) {
    for (String dir : HostIptables.DIRS) {
      try {
        host.resolve(dir);
        return true;
      } catch (HostReadException e) {
        // try the next one
      }
    }
    return false;
  }
}
