package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.engine.revisions.Route;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code check --retire REV}: may the release of revision REV be uninstalled? Only when nothing
 * would reach it or still runs its proxies: no namespace routes to it (by its label, or by the name
 * it asks for, directly or through a tag), no pod template names it or a tag pointing at it, no tag
 * points at it, and no running pod carries it. Otherwise one failure naming each reason.
 */
final class RetireVerdict {
  private RetireVerdict() {}

  static CheckResult of(
      String revision, Routing routing, PodTemplates templates, RunningPods running) {
    Revisions revisions = routing.revisions();
    String name = "revision " + revision + " may be retired";
    List<String> reasons = new ArrayList<>();
    List<String> tags =
        revisions.tags().entrySet().stream()
            .filter(t -> t.getValue().equals(revision))
            .map(Map.Entry::getKey)
            .toList();
    if (!tags.isEmpty()) {
      reasons.add(
          "tags point at it: "
              + Capped.join(tags)
              + " (move each: mesh-injector tag set TAG --revision OTHER)");
    }
    List<String> namespaces = namespaces(revision, routing);
    if (!namespaces.isEmpty()) {
      reasons.add(namespaces.size() + " namespaces route to it: " + Capped.join(namespaces));
    }
    Set<String> names = new HashSet<>(tags);
    names.add(revision);
    List<String> named =
        templates.named().stream()
            .filter(t -> names.contains(t.rev()))
            .map(t -> t.describe() + " (" + t.rev() + ")")
            .toList();
    if (!named.isEmpty()) {
      reasons.add(named.size() + " pod templates name it or its tags: " + Capped.join(named));
    }
    Map<String, Integer> carrying = new TreeMap<>();
    for (RunningPods.RunningPod p : running.pods()) {
      if (revision.equals(p.revision())) {
        carrying.merge(p.namespace(), 1, Integer::sum);
      }
    }
    if (!carrying.isEmpty()) {
      List<String> where = new ArrayList<>();
      carrying.forEach((ns, n) -> where.add(ns + ": " + n));
      reasons.add(
          carrying.values().stream().mapToInt(Integer::intValue).sum()
              + " running pods carry it ("
              + Capped.join(where)
              + "); mesh-injector check names their workloads to restart");
    }
    reasons.addAll(templates.unread());
    String served =
        Optional.ofNullable(revisions.revisions().get(revision))
            .map(r -> "release " + r.describe())
            .orElse("no release serves it");
    if (reasons.isEmpty()) {
      return CheckResult.pass(
          RevisionChecks.GROUP,
          name,
          "no namespace routes to it, no pod template names it, no tag points at it and no"
              + " running pod carries it ("
              + served
              + ")");
    }
    return CheckResult.fail(
        RevisionChecks.GROUP,
        name,
        "not yet (" + served + "): " + String.join("; ", reasons),
        "move its tags and namespaces to another revision, restart the workloads, then run check"
            + " --retire "
            + revision
            + " again");
  }

  /**
   * The namespaces whose pods would reach it: by the routing label the API server routes on, or by
   * the name the namespace asks for when it opted in or names one itself.
   */
  private static List<String> namespaces(String revision, Routing routing) {
    List<String> out = new ArrayList<>();
    for (Namespace ns : routing.namespaces()) {
      Optional<Route> label = routing.ofLabel(ns);
      Optional<Route> asked =
          routing.optedIn(ns) || routing.namesOne(ns)
              ? Optional.of(routing.ofNamespace(ns))
              : Optional.empty();
      Optional<Route.Resolved> hit =
          Stream.of(label, asked)
              .flatMap(Optional::stream)
              .filter(r -> r instanceof Route.Resolved res && res.revision().equals(revision))
              .map(r -> (Route.Resolved) r)
              .findFirst();
      hit.ifPresent(
          r ->
              out.add(
                  ns.getMetadata().getName() + (r.tag() ? " (via tag " + r.asked() + ")" : "")));
    }
    return out;
  }
}
