package io.meshinjector.engine.revisions;

import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Map;

/**
 * What a revision does with an opted-in pod that reached it through its catch-all entry, which
 * fails open and is matched by pods of many routes: inject it when its names (its own {@value
 * RevisionNames#REV}, else its namespace's, else the default tag) resolve to this revision; refuse
 * it when they name a revision no release serves, so that no pod is created without its proxy
 * because of a typo or a retired revision; else answer without a patch.
 *
 * <p>The namespace's routing label is not read here. The API server chose the catch-all from its
 * own cache of namespaces, which may not hold the label this webhook's informer already sees: the
 * pod of a namespace applied together with its Deployment arrives before the API server has seen
 * the label, and no route's entry is called for it. Where the API server did see the label, the
 * route's own entry sends the pod to the same revision, and whichever call comes second finds it
 * injected and is skipped by the injection-incomplete condition. docs/upgrades.md has the table.
 */
public sealed interface Unrouted {
  /** This revision injects it, through the catch-all. */
  record Mine() implements Unrouted {}

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
    Route route = resolver.route(podAnnotations, namespace, revisions, self);
    if (route instanceof Route.Unknown unknown) {
      return new Refused(unknown);
    }
    Route.Resolved resolved = (Route.Resolved) route;
    return resolved.revision().equals(self)
        ? new Mine()
        : new Elsewhere("routed to revision " + resolved.revision());
  }
}
