package io.meshinjector.engine.revisions;

import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Map;

/**
 * What a revision does with an opted-in pod that reached it through its catch-all entry, which
 * fails open and is matched by pods of many routes: inject it only when no route's own entry takes
 * it and it routes here; refuse it when it names a revision no release serves, so that no pod is
 * created without its proxy because of a typo or a retired revision; else answer without a patch.
 * docs/upgrades.md has the table.
 */
public sealed interface Unrouted {
  /** This revision injects it, through the catch-all. */
  record Mine(Route route) implements Unrouted {}

  /** Another entry (a route's own, failing closed) or another revision injects it. */
  record Elsewhere(String why) implements Unrouted {}

  /** It names a revision or tag no release serves. */
  record Refused(Route.Unknown route) implements Unrouted {}

  /**
   * The judgement for a pod with {@code podAnnotations} in {@code namespace}.
   *
   * @param self this release's revision
   */
  static Unrouted judge(
      Map<String, String> podAnnotations,
      Namespace namespace,
      Revisions revisions,
      String self,
      RouteResolver resolver) {
    Map<String, String> labels = namespace == null ? null : namespace.getMetadata().getLabels();
    String routed = labels == null ? null : labels.get(RevisionNames.ROUTE_LABEL);
    String podRev = podAnnotations == null ? null : podAnnotations.get(RevisionNames.REV);
    boolean podNames = podRev != null && !podRev.isEmpty();
    Route route;
    if (routed != null && !podNames) {
      // the label is what the API server routes on: the name it carries decides
      String name = RevisionNames.nameOfRoute(routed);
      route =
          resolver.resolveName(
              name,
              "namespace's label " + RevisionNames.ROUTE_LABEL + "=" + routed,
              revisions,
              self);
    } else {
      route = resolver.route(podAnnotations, namespace, revisions, self);
    }
    if (route instanceof Route.Unknown unknown) {
      return new Refused(unknown);
    }
    Route.Resolved resolved = (Route.Resolved) route;
    if (routed != null && revisions.hasOwnEntries(route.asked())) {
      return new Elsewhere(
          "routed by the entries of " + (resolved.tag() ? "tag " : "revision ") + route.asked());
    }
    return resolved.revision().equals(self)
        ? new Mine(resolved)
        : new Elsewhere("routed to revision " + resolved.revision());
  }
}
