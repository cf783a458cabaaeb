package io.meshinjector.webhook.cli;

import io.meshinjector.engine.revisions.Route;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The revision {@code explain} says would inject a pod, in its text and JSON shapes. A route
 * resolved without the cluster's revisions (the {@code --cluster} files hold none) has no release:
 * every name then goes to this release's own revision, as with a single release.
 */
final class ExplainedRoute {
  private ExplainedRoute() {}

  /** One line, after {@code revision: }. */
  static String text(Route route) {
    if (route instanceof Route.Resolved r) {
      if (r.release() == null) {
        return "this release's revision "
            + r.revision()
            + " (the cluster's revisions were not read)";
      }
      return r.revision()
          + (r.tag() ? " via tag " + r.asked() : "")
          + " (from "
          + r.from()
          + "), release "
          + r.release().describe();
    }
    return route.describe();
  }

  /**
   * {@code {asked, from, revision, tag, release}} for a name that resolves ({@code tag} null when
   * the name is the revision's own, {@code release} null when the cluster was not read), {@code
   * {asked, from, unknown}} for one no release serves.
   */
  static Map<String, Object> json(Route route) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("asked", route.asked());
    m.put("from", route.from());
    if (route instanceof Route.Resolved r) {
      m.put("revision", r.revision());
      m.put("tag", r.tag() ? r.asked() : null);
      if (r.release() == null) {
        m.put("release", null);
      } else {
        Map<String, Object> release = new LinkedHashMap<>();
        release.put("namespace", r.release().namespace());
        release.put("name", r.release().name());
        m.put("release", release);
      }
    } else {
      m.put("unknown", route.describe());
    }
    return m;
  }

  /**
   * A decision's JSON with {@code revision} added before {@code overrides}, which the contract
   * keeps last.
   */
  static Map<String, Object> withRoute(Map<String, Object> decision, Route route) {
    Map<String, Object> out = new LinkedHashMap<>();
    decision.forEach(
        (k, v) -> {
          if (k.equals("overrides")) {
            out.put("revision", json(route));
          }
          out.put(k, v);
        });
    out.putIfAbsent("revision", json(route));
    return out;
  }
}
