package io.meshinjector.plane;

import java.util.ArrayList;
import java.util.List;

/**
 * The iptables chains the node's kubelet and kube-proxy make ({@code KUBE-*}, in the filter, nat
 * and mangle tables, IPv4 and IPv6), removed after them: {@code kube-proxy --cleanup} leaves its
 * canary chains and the kubelet's own, and a rule such as the kubelet's KUBE-FIREWALL would stay in
 * this machine's INPUT and OUTPUT chains. Nothing else on this machine makes {@code KUBE-} chains:
 * the real node is the only Kubernetes node here.
 */
final class KubeChains {
  private KubeChains() {}

  static void remove() {
    for (String tool : List.of("iptables", "ip6tables")) {
      if (HostCommands.which(tool) == null || HostCommands.which(tool + "-save") == null) {
        continue;
      }
      HostCommands.Result saved = HostCommands.run(List.of(tool + "-save"), 30);
      if (!saved.ok()) {
        continue;
      }
      String table = null;
      List<String[]> chains = new ArrayList<>();
      List<List<String>> jumps = new ArrayList<>();
      for (String line : saved.output().split("\n")) {
        if (line.startsWith("*")) {
          table = line.substring(1).strip();
        } else if (line.startsWith(":KUBE-")) {
          chains.add(new String[] {table, line.substring(1).split(" ")[0]});
        } else if (line.startsWith("-A ")
            && !line.startsWith("-A KUBE-")
            && line.contains(" -j KUBE-")) {
          // a jump from a chain of the machine's own (INPUT, OUTPUT, PREROUTING...): deleted by
          // its exact spec, as iptables-save printed it (the shell undoes its quoting)
          jumps.add(List.of("sh", "-c", tool + " -t " + table + " -D " + line.substring(3)));
        }
      }
      jumps.forEach(command -> HostCommands.run(command, 10));
      chains.forEach(c -> HostCommands.run(List.of(tool, "-t", c[0], "-F", c[1]), 10));
      chains.forEach(c -> HostCommands.run(List.of(tool, "-t", c[0], "-X", c[1]), 10));
    }
  }
}
