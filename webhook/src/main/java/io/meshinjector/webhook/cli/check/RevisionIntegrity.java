package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.engine.revisions.Route;
import io.meshinjector.webhook.cli.snapshot.InjectorConfigurations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What breaks pod creation now among the cluster's revisions: a name no release serves (the
 * catch-all entries refuse the pods that ask for it), a tag whose revision is gone, a tag that
 * shares a served revision's name, two configurations claiming one revision.
 */
final class RevisionIntegrity {
  private RevisionIntegrity() {}

  static List<CheckResult> results(
      Routing routing, InjectorConfigurations configurations, PodTemplates templates) {
    Revisions revisions = routing.revisions();
    List<CheckResult> out = new ArrayList<>();
    for (Map.Entry<String, List<String>> twice : configurations.claimedTwice().entrySet()) {
      out.add(
          CheckResult.fail(
              RevisionChecks.GROUP,
              "revision " + twice.getKey() + " is claimed by one webhook configuration",
              "claimed by " + String.join(", ", twice.getValue()),
              "two releases were installed with one revision name: uninstall one, or install it"
                  + " again with another value of revision"));
    }
    for (Map.Entry<String, String> tag : revisions.tags().entrySet()) {
      if (!revisions.revisions().containsKey(tag.getValue())) {
        out.add(
            CheckResult.fail(
                RevisionChecks.GROUP,
                "tag " + tag.getKey() + " points at a served revision",
                "it points at revision " + tag.getValue() + ", which no release serves",
                "new pods of its namespaces are refused: mesh-injector tag set "
                    + tag.getKey()
                    + " --revision REV (served: "
                    + Capped.join(List.copyOf(revisions.revisions().keySet()))
                    + ")"));
      }
      if (revisions.revisions().containsKey(tag.getKey())
          && !RevisionNames.DEFAULT.equals(tag.getKey())) {
        out.add(
            CheckResult.fail(
                RevisionChecks.GROUP,
                "tag " + tag.getKey() + " has a name of its own",
                tag.getKey() + " is both a tag and a served revision's name",
                "a namespace naming it cannot tell which it asks for: mesh-injector tag remove "
                    + tag.getKey()
                    + ", and point its namespaces at another tag"));
      }
    }
    // without the cluster's revisions only a malformed name is unknown
    out.addAll(unknownNames(routing, templates));
    out.addAll(disagreeingSelections(routing));
    if (templates.unread().size() > 0) {
      out.add(
          CheckResult.warn(
              RevisionChecks.GROUP,
              "can list the workloads' pod templates",
              String.join("; ", templates.unread()),
              "their mesh-injector.io/rev is not checked: grant list on deployments,"
                  + " statefulsets, daemonsets, replicasets, jobs and cronjobs"));
    }
    if (out.stream().noneMatch(CheckResult::failed)) {
      out.add(
          0,
          CheckResult.pass(
              RevisionChecks.GROUP, "revisions and tags are consistent", summary(revisions)));
    }
    return out;
  }

  /**
   * The namespaces whose selections disagree (in the Istio flavour: both Istio labels, or a label
   * against an annotation): resolved as the webhook resolves them, and worth a warning, since the
   * user meant one of them.
   */
  private static List<CheckResult> disagreeingSelections(Routing routing) {
    List<String> conflicts = new ArrayList<>();
    for (Namespace ns : routing.namespaces()) {
      if (!routing.excluded(ns)) {
        conflicts.addAll(routing.conflicts(ns));
      }
    }
    if (conflicts.isEmpty()) {
      return List.of();
    }
    return List.of(
        CheckResult.warn(
            RevisionChecks.GROUP,
            conflicts.size() + " namespace selections disagree",
            Capped.join(conflicts),
            "keep one selection per namespace; each line says which one is in force"));
  }

  /** The namespaces and opted-in pod templates that name a revision or tag no release serves. */
  private static List<CheckResult> unknownNames(Routing routing, PodTemplates templates) {
    List<CheckResult> out = new ArrayList<>();
    List<String> namespaces = new ArrayList<>();
    for (Namespace ns : routing.namespaces()) {
      if (routing.excluded(ns) || (!routing.optedIn(ns) && !routing.namesOne(ns))) {
        continue;
      }
      if (routing.ofNamespace(ns) instanceof Route.Unknown u) {
        namespaces.add(u.describe());
      }
    }
    if (!namespaces.isEmpty()) {
      out.add(
          CheckResult.fail(
              RevisionChecks.GROUP,
              namespaces.size() + " namespaces name a revision or tag no release serves",
              Capped.join(namespaces),
              "their new pods are refused: set their mesh-injector.io/rev to a served revision or"
                  + " tag (mesh-injector tag list), or install that revision"));
    }
    List<String> named = new ArrayList<>();
    for (PodTemplates.Named t : templates.named()) {
      if (!routing.optedIn(t.namespace(), t.inject())) {
        continue;
      }
      Route route = routing.ofName(t.rev(), t.describe() + "'s " + RevisionNames.REV);
      if (route instanceof Route.Unknown u) {
        named.add(u.describe());
      }
    }
    if (!named.isEmpty()) {
      out.add(
          CheckResult.fail(
              RevisionChecks.GROUP,
              named.size() + " pod templates name a revision or tag no release serves",
              Capped.join(named),
              "their new pods are refused: point their mesh-injector.io/rev at a served revision"
                  + " or tag (mesh-injector tag list), or install that revision"));
    }
    return out;
  }

  private static String summary(Revisions revisions) {
    if (!revisions.known() || (revisions.revisions().isEmpty() && revisions.tags().isEmpty())) {
      return "no webhook configuration is labelled "
          + RevisionNames.REVISION_LABEL
          + ": one release from before revisions injects every opted-in namespace";
    }
    List<String> served = new ArrayList<>();
    revisions.revisions().forEach((r, release) -> served.add(r + " (" + release.describe() + ")"));
    List<String> tags = new ArrayList<>();
    revisions.tags().forEach((t, r) -> tags.add(t + " -> " + r));
    return "served: "
        + String.join(", ", served)
        + "; tags: "
        + (tags.isEmpty() ? "none" : String.join(", ", tags));
  }
}
