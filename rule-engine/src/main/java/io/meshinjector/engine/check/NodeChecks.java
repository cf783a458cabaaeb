package io.meshinjector.engine.check;

import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.rules.Viability;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checks that need no cluster, only what was read from one, and their sentences and hints in
 * one place: redirect paths per node, probe coverage, pods at risk, the serving certificate.
 * docs/operations.md explains each.
 */
public final class NodeChecks {
  public static final String NODES = "nodes";
  public static final String PROBE = "node probe";
  public static final String PODS = "injected pods";
  public static final String CERTIFICATE = "certificate";

  /** Lines per check before the rest are summed up in one: 5,000 nodes must not print 5,000. */
  public static final int MAX_LINES = 20;

  /** A certificate expiring within this is a warning. */
  public static final Duration EXPIRY_WARNING = Duration.ofDays(30);

  private NodeChecks() {}

  /** One warning per node where no preferred path works (a failure is its pods, below). */
  public static List<CheckResult> paths(
      int nodes, List<NodePaths.NoPath> withoutPath, List<PathOption> preference) {
    if (withoutPath.isEmpty()) {
      return List.of(
          CheckResult.pass(NODES, "a redirect path works on every node", nodes + " nodes"));
    }
    String fix =
        preference.stream().map(Viability::fix).distinct().collect(Collectors.joining("; or "));
    List<CheckResult> out = new ArrayList<>();
    for (NodePaths.NoPath p : withoutPath.subList(0, Math.min(MAX_LINES, withoutPath.size()))) {
      out.add(
          CheckResult.warn(
              NODES,
              "no redirect path works on node " + p.node(),
              p.lacks(),
              "an injected pod cannot start there; " + fix));
    }
    if (withoutPath.size() > MAX_LINES) {
      out.add(
          CheckResult.warn(
              NODES,
              "no redirect path works on " + (withoutPath.size() - MAX_LINES) + " more nodes",
              "of " + nodes + " nodes, " + withoutPath.size() + " have no working path",
              "explain -f on a pod lists the node classes and what each lacks; " + fix));
    }
    return out;
  }

  /**
   * The nodes the matrix of OS and pod addresses singles out: Windows nodes (no injected pod may
   * run there) and nodes whose pods' IPv6 nobody knows ({@code proxyInit.ipv6} decides for them).
   * Dual-stack nodes without an IPv6 redirect are among {@link #paths}' nodes without a path.
   *
   * @param ipv6Assumed {@code proxyInit.ipv6}
   */
  public static List<CheckResult> nodeMatrix(
      List<String> windows, List<String> podCidrsUnset, boolean ipv6Assumed) {
    List<CheckResult> out = new ArrayList<>();
    if (!windows.isEmpty()) {
      out.add(
          CheckResult.warn(
              NODES,
              windows.size() + " nodes run Windows",
              names(windows),
              "the mesh's proxy is a Linux program: pods that may land there are kept to Linux"
                  + " nodes (policy.mixedNodes) or admitted without injection; give Windows"
                  + " workloads spec.os.name: windows"));
    }
    if (!podCidrsUnset.isEmpty()) {
      out.add(
          CheckResult.warn(
              NODES,
              podCidrsUnset.size() + " nodes have no spec.podCIDRs",
              names(podCidrsUnset),
              "whether their pods have IPv6 is unknown, so proxyInit.ipv6 ("
                  + ipv6Assumed
                  + ") decides; "
                  + (ipv6Assumed
                      ? "their pods' redirect covers IPv6"
                      : "if their pods do have IPv6, that traffic bypasses the proxy")
                  + ". Say so per node with capabilities.overrides (ipv6-pods: present or"
                  + " absent)"));
    }
    return out;
  }

  public static List<CheckResult> probes(ProbeCoverage coverage, Duration ttl) {
    List<CheckResult> out = new ArrayList<>();
    if (!coverage.missing().isEmpty()) {
      out.add(
          CheckResult.warn(
              PROBE,
              coverage.missing().size() + " nodes have no probe report",
              names(coverage.missing()),
              "their verdicts come from inference alone; check that the probe DaemonSet"
                  + " (probe.enabled) runs there and is not kept off by a taint"));
    }
    List<ProbeCoverage.Stale> stale = coverage.stale();
    for (ProbeCoverage.Stale s : stale.subList(0, Math.min(MAX_LINES, stale.size()))) {
      out.add(
          CheckResult.warn(
              PROBE,
              "the probe report of node " + s.node() + " is stale",
              "reported "
                  + age(s.age())
                  + " ago, more than capabilities.probeTtl ("
                  + age(ttl)
                  + ")",
              "its verdicts count as unknown; check the probe pod on that node (kubectl -n"
                  + " <namespace> get pods -l app.kubernetes.io/component=probe -o wide) and its"
                  + " log"));
    }
    if (stale.size() > MAX_LINES) {
      out.add(
          CheckResult.warn(
              PROBE,
              (stale.size() - MAX_LINES) + " more nodes have stale probe reports",
              stale.size() + " in all",
              "check the probe DaemonSet's pods and their logs"));
    }
    if (out.isEmpty()) {
      out.add(
          CheckResult.pass(
              PROBE,
              "every node has a probe report within capabilities.probeTtl",
              coverage.fresh() + " reports"));
    }
    return out;
  }

  /** A failure per namespace holding pods at risk. */
  public static List<CheckResult> podsAtRisk(int injectedRunning, List<PodsAtRisk.AtRisk> atRisk) {
    if (atRisk.isEmpty()) {
      return List.of(
          CheckResult.pass(
              PODS,
              "every running injected pod's path still works on its node",
              injectedRunning + " running injected pods"));
    }
    Map<String, List<PodsAtRisk.AtRisk>> byNamespace = new TreeMap<>();
    atRisk.forEach(
        r -> byNamespace.computeIfAbsent(r.pod().namespace(), n -> new ArrayList<>()).add(r));
    List<CheckResult> out = new ArrayList<>();
    byNamespace.forEach(
        (ns, risks) -> {
          List<String> lines = new ArrayList<>();
          for (PodsAtRisk.AtRisk r : risks.subList(0, Math.min(MAX_LINES, risks.size()))) {
            lines.add(
                r.pod().name() + " on " + r.pod().node() + " (" + r.path() + ": " + r.lack() + ")");
          }
          if (risks.size() > MAX_LINES) {
            lines.add((risks.size() - MAX_LINES) + " more");
          }
          out.add(
              CheckResult.fail(
                  PODS,
                  risks.size() + " pods at risk in namespace " + ns,
                  String.join(", ", lines),
                  "they run now, but a restart on that node would fail; restore what the node"
                      + " lacks ("
                      + Viability.fix(risks.get(0).path())
                      + "), or drain the node so they are admitted again elsewhere"));
        });
    return out;
  }

  public static CheckResult certificate(String what, Instant notAfter, Instant now) {
    Duration left = Duration.between(now, notAfter);
    if (left.isNegative() || left.isZero()) {
      return CheckResult.fail(
          CERTIFICATE,
          what + " has expired",
          "notAfter " + notAfter,
          "the API server cannot call the webhook; renew it (docs/certificates.md) and restart"
              + " nothing: the replicas reload it");
    }
    if (left.compareTo(EXPIRY_WARNING) < 0) {
      return CheckResult.warn(
          CERTIFICATE,
          what + " expires in " + age(left),
          "notAfter " + notAfter,
          "renew it before then (docs/certificates.md); in self-managed mode check that the"
              + " elected replica runs and its log names no renewal failure");
    }
    return CheckResult.pass(
        CERTIFICATE, what + " is valid", "for " + age(left) + ", until " + notAfter);
  }

  static String names(List<String> nodes) {
    String shown = String.join(", ", nodes.subList(0, Math.min(MAX_LINES, nodes.size())));
    return nodes.size() > MAX_LINES
        ? shown + " and " + (nodes.size() - MAX_LINES) + " more"
        : shown;
  }

  /** {@code 3d4h}, {@code 2h5m}, {@code 40s}: the two largest units. */
  static String age(Duration d) {
    long s = d.getSeconds();
    if (s >= 86_400) {
      return s / 86_400 + "d" + (s % 86_400) / 3600 + "h";
    }
    if (s >= 3600) {
      return s / 3600 + "h" + (s % 3600) / 60 + "m";
    }
    if (s >= 60) {
      return s / 60 + "m" + s % 60 + "s";
    }
    return s + "s";
  }
}
