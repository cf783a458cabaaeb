package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.check.ProxyDrift.Workload;
import io.meshinjector.engine.revisions.Route;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Each opted-in namespace's revision: the name it asks for and the revision its new pods get, the
 * revisions its running pods carry, the running pods that have no proxy though they would get one
 * now, and the workloads whose running pods carry another revision than their new pods would get.
 * Running pods are never touched by a tag's move or a namespace's new name; these say which to
 * restart.
 */
final class NamespaceRevisions {
  /** The running pods of one workload that carry another revision than new pods get. */
  private static final class Behind {
    int pods;
    final Set<String> carried = new TreeSet<>();
    final Set<String> expected = new TreeSet<>();
  }

  private NamespaceRevisions() {}

  static List<CheckResult> results(Routing routing, RunningPods running, PodTemplates templates) {
    Map<String, String> carried = carried(running);
    List<CheckResult> out = new ArrayList<>();
    for (Namespace ns : routing.optedIn()) {
      // a name no release serves is one of the integrity checks' failures
      if (routing.ofNamespace(ns) instanceof Route.Resolved r) {
        out.add(line(ns, r, running.wasListed(), carried));
      }
    }
    if (!running.wasListed()) {
      return out;
    }
    out.addAll(withoutProxy(running, templates));
    out.addAll(behind(routing, running, templates));
    return out;
  }

  private static CheckResult line(
      Namespace ns, Route.Resolved r, boolean listed, Map<String, String> carried) {
    String name = ns.getMetadata().getName();
    String gets =
        r.release() == null
            ? "revision "
                + r.revision()
                + " (no webhook configuration names a revision: one release serves all)"
            : Routing.target(r);
    StringBuilder detail = new StringBuilder();
    detail.append("asks for ").append(r.asked()).append(" (").append(r.from()).append(')');
    if (listed) {
      detail.append("; running injected pods: ").append(carried.getOrDefault(name, "none"));
    }
    return CheckResult.pass(
        RevisionChecks.GROUP, "namespace " + name + ": new pods get " + gets, detail.toString());
  }

  /**
   * By namespace, the revisions its running injected pods carry: {@code 1-2: 4, 1-1: 2, unrecorded
   * (injected before revisions): 1}. One pass over the pods, whatever their number.
   */
  private static Map<String, String> carried(RunningPods running) {
    Map<String, Map<String, Integer>> byNamespace = new TreeMap<>();
    for (RunningPods.RunningPod p : running.pods()) {
      if (p.injected()) {
        byNamespace
            .computeIfAbsent(p.namespace(), k -> new TreeMap<>())
            .merge(p.revision() == null ? UNRECORDED : p.revision(), 1, Integer::sum);
      }
    }
    Map<String, String> out = new TreeMap<>();
    byNamespace.forEach(
        (ns, counts) -> {
          List<String> parts = new ArrayList<>();
          counts.forEach(
              (rev, n) -> {
                if (!rev.equals(UNRECORDED)) {
                  parts.add(rev + ": " + n);
                }
              });
          if (counts.containsKey(UNRECORDED)) {
            parts.add("unrecorded (injected before revisions): " + counts.get(UNRECORDED));
          }
          out.put(ns, String.join(", ", parts));
        });
    return out;
  }

  /** No revision name has a space: the key of pods that recorded none. */
  private static final String UNRECORDED = " unrecorded";

  /**
   * The running pods of opted-in namespaces that have no proxy, though they did not opt out: made
   * before the namespace opted in, or while the injector was bypassed (its catch-all failing open,
   * linkerd2#4015). One warning per namespace.
   */
  private static List<CheckResult> withoutProxy(RunningPods running, PodTemplates templates) {
    Map<String, List<String>> names = new TreeMap<>();
    Map<String, Set<String>> restarts = new TreeMap<>();
    for (RunningPods.RunningPod p : running.pods()) {
      if (p.missingProxy()) {
        names.computeIfAbsent(p.namespace(), k -> new ArrayList<>()).add(p.name());
        restarts
            .computeIfAbsent(p.namespace(), k -> new LinkedHashSet<>())
            .add(RestartHint.of(p.namespace(), workload(p, templates)));
      }
    }
    List<CheckResult> out = new ArrayList<>();
    names.forEach(
        (ns, pods) ->
            out.add(
                CheckResult.warn(
                    RevisionChecks.GROUP,
                    pods.size() + " running pods in namespace " + ns + " have no proxy",
                    "the namespace opted in and they did not opt out: they were created before it"
                        + " did, or while the injector was bypassed (linkerd2#4015): "
                        + Capped.join(pods.stream().sorted().toList()),
                    Capped.join(List.copyOf(restarts.get(ns)), 3))));
    return out;
  }

  /** The workloads whose running pods carry another revision than their new pods would get. */
  private static List<CheckResult> behind(
      Routing routing, RunningPods running, PodTemplates templates) {
    Map<String, Map<Workload, Behind>> byNamespace = new TreeMap<>();
    for (RunningPods.RunningPod p : running.pods()) {
      if (!p.injected() || p.revision() == null) {
        continue;
      }
      if (!(routing.ofPod(p.namespace(), p.routing()) instanceof Route.Resolved r)
          || r.revision().equals(p.revision())) {
        continue;
      }
      Behind b =
          byNamespace
              .computeIfAbsent(
                  p.namespace(), k -> new TreeMap<>(Comparator.comparing(Workload::ref)))
              .computeIfAbsent(workload(p, templates), k -> new Behind());
      b.pods++;
      b.carried.add(p.revision());
      b.expected.add(r.revision());
    }
    List<CheckResult> out = new ArrayList<>();
    int workloads = 0;
    int restPods = 0;
    int restWorkloads = 0;
    for (Map.Entry<String, Map<Workload, Behind>> ns : byNamespace.entrySet()) {
      for (Map.Entry<Workload, Behind> w : ns.getValue().entrySet()) {
        Behind b = w.getValue();
        if (workloads++ >= Capped.ITEMS) {
          restWorkloads++;
          restPods += b.pods;
          continue;
        }
        out.add(
            CheckResult.warn(
                RevisionChecks.GROUP,
                b.pods
                    + " pods of "
                    + w.getKey().ref()
                    + " in namespace "
                    + ns.getKey()
                    + " run another revision than new pods get",
                "they carry revision "
                    + String.join(", ", b.carried)
                    + "; new pods get revision "
                    + String.join(", ", b.expected),
                RestartHint.of(ns.getKey(), w.getKey())));
      }
    }
    if (restWorkloads > 0) {
      out.add(
          CheckResult.warn(
              RevisionChecks.GROUP,
              restPods
                  + " pods of "
                  + restWorkloads
                  + " more workloads run another revision than new pods get",
              "the first " + Capped.ITEMS + " workloads are listed above",
              "restart each as above once those are done, then run check again"));
    }
    return out;
  }

  /**
   * The workload that recreates the pod: its controller, or for a ReplicaSet the Deployment that
   * owns it, when the ReplicaSets could be read.
   */
  static Workload workload(RunningPods.RunningPod p, PodTemplates templates) {
    Workload c = p.controller();
    if ("ReplicaSet".equals(c.kind())) {
      return templates
          .deploymentOf(p.namespace(), c.name())
          .map(d -> new Workload("Deployment", d))
          .orElse(c);
    }
    return c;
  }
}
