package io.meshinjector.webhook.revisions;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchCondition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchConditionBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.meshinjector.engine.revisions.RevisionNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The webhook entries that route pods to one revision or tag, built from a revision's catch-all
 * entry ({@value #CATCH_ALL}) as the chart renders it: the same client, CA bundle, timeouts, rules,
 * exclusions and match conditions, with the route's own namespace selector and conditions. The
 * chart renders the same three entries for a revision's own name (templates/admission.yaml); a
 * tag's webhook configuration holds them for the tag's name. docs/upgrades.md shows the table.
 *
 * <ul>
 *   <li>{@value #ROUTED}: namespaces labelled with the name, pods that name no other revision: the
 *       configured failure policy.
 *   <li>{@value #POD_REV}: pods that name it in a namespace routed elsewhere: the same policy.
 *   <li>{@value #OTHER_REV}: pods in its namespaces that name another revision: {@code Ignore}, to
 *       the unrouted path, where the webhook refuses a name no release serves and answers any other
 *       without a patch.
 * </ul>
 */
public final class RouteEntries {
  public static final String ROUTED = "inject.mesh-injector.io";
  public static final String POD_REV = "inject-rev.mesh-injector.io";
  public static final String OTHER_REV = "rev-elsewhere.mesh-injector.io";
  public static final String CATCH_ALL = "inject-unlabelled.mesh-injector.io";

  private static final Set<String> ROUTE_NAMES = Set.of(ROUTED, POD_REV, OTHER_REV);

  /** The path of every entry that routes; the catch-all's is this plus {@value #UNROUTED}. */
  public static final String MUTATE = "/mutate";

  public static final String UNROUTED = "/unrouted";

  /** The pod's {@code mesh-injector.io/rev}, or '' when it has none, in CEL. */
  static final String POD_REV_CEL =
      "(has(object.metadata.annotations) && '"
          + RevisionNames.REV
          + "' in object.metadata.annotations ? object.metadata.annotations['"
          + RevisionNames.REV
          + "'] : '')";

  private RouteEntries() {}

  /**
   * The entries for {@code name}.
   *
   * @param catchAll the revision's catch-all entry, whose client and selectors they copy
   * @param failurePolicy the revision's policy for the namespaces routed to it
   */
  public static List<MutatingWebhook> forName(
      String name, MutatingWebhook catchAll, String failurePolicy) {
    String value = RevisionNames.routeValue(name);
    List<LabelSelectorRequirement> exclusions = exclusions(catchAll.getNamespaceSelector());
    String quoted = "'" + name + "'";
    List<MutatingWebhook> out = new ArrayList<>();
    out.add(
        entry(
            catchAll,
            ROUTED,
            failurePolicy,
            MUTATE,
            selector(exclusions, route("In", value)),
            condition("rev-is-this", POD_REV_CEL + " == '' || " + POD_REV_CEL + " == " + quoted)));
    out.add(
        entry(
            catchAll,
            POD_REV,
            failurePolicy,
            MUTATE,
            selector(exclusions, route("Exists", null), route("NotIn", value)),
            condition("rev-names-this", POD_REV_CEL + " == " + quoted)));
    out.add(
        entry(
            catchAll,
            OTHER_REV,
            "Ignore",
            MUTATE + UNROUTED,
            selector(exclusions, route("In", value)),
            condition(
                "rev-names-other", POD_REV_CEL + " != '' && " + POD_REV_CEL + " != " + quoted)));
    return out;
  }

  /** Whether {@code entry} is one of the route entries (not the catch-all). */
  public static boolean isRoute(MutatingWebhook entry) {
    return ROUTE_NAMES.contains(entry.getName());
  }

  /**
   * A JSON Patch, as a list of operations, that takes the route entries out of a revision's
   * configuration: each removal guarded by a test of the entry's name at its index, last index
   * first, so a concurrent reorder fails the patch instead of removing another entry. Empty when it
   * has none. {@code tag set default} applies it to the revision called default once the tag object
   * serves its namespaces.
   */
  public static List<Map<String, Object>> removeRoutes(MutatingWebhookConfiguration revision) {
    List<Map<String, Object>> ops = new ArrayList<>();
    List<MutatingWebhook> webhooks =
        revision.getWebhooks() == null ? List.of() : revision.getWebhooks();
    for (int i = webhooks.size() - 1; i >= 0; i--) {
      if (isRoute(webhooks.get(i))) {
        ops.add(op("test", "/webhooks/" + i + "/name", webhooks.get(i).getName()));
        ops.add(op("remove", "/webhooks/" + i, null));
      }
    }
    return ops;
  }

  private static Map<String, Object> op(String op, String path, Object value) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("op", op);
    m.put("path", path);
    if (value != null) {
      m.put("value", value);
    }
    return m;
  }

  private static MutatingWebhook entry(
      MutatingWebhook base,
      String entryName,
      String failurePolicy,
      String path,
      LabelSelector namespaces,
      MatchCondition route) {
    List<MatchCondition> conditions = new ArrayList<>();
    conditions.add(route);
    if (base.getMatchConditions() != null) {
      conditions.addAll(base.getMatchConditions());
    }
    return new MutatingWebhookBuilder(base)
        .withName(entryName)
        .withFailurePolicy(failurePolicy)
        .withClientConfig(withPath(base.getClientConfig(), path))
        .withNamespaceSelector(namespaces)
        .withMatchConditions(conditions)
        .build();
  }

  /** The client config with the path replaced: the catch-all's ends in {@value #UNROUTED}. */
  static WebhookClientConfig withPath(WebhookClientConfig config, String path) {
    WebhookClientConfigBuilder b = new WebhookClientConfigBuilder(config);
    if (config.getUrl() != null) {
      b.withUrl(base(config.getUrl()) + path);
    }
    if (config.getService() != null) {
      String current = config.getService().getPath();
      b.editService().withPath(base(current == null ? "" : current) + path).endService();
    }
    return b.build();
  }

  /** A path or URL with the entry's own suffix taken off. */
  private static String base(String pathOrUrl) {
    String p = pathOrUrl;
    if (p.endsWith(UNROUTED)) {
      p = p.substring(0, p.length() - UNROUTED.length());
    }
    if (p.endsWith(MUTATE)) {
      p = p.substring(0, p.length() - MUTATE.length());
    }
    return p;
  }

  /** The catch-all's namespace expressions but the routing label's. */
  static List<LabelSelectorRequirement> exclusions(LabelSelector selector) {
    List<LabelSelectorRequirement> out = new ArrayList<>();
    if (selector != null && selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!RevisionNames.ROUTE_LABEL.equals(r.getKey())) {
          out.add(r);
        }
      }
    }
    return out;
  }

  private static LabelSelectorRequirement route(String operator, String value) {
    LabelSelectorRequirementBuilder b =
        new LabelSelectorRequirementBuilder()
            .withKey(RevisionNames.ROUTE_LABEL)
            .withOperator(operator);
    if (value != null) {
      b.withValues(value);
    }
    return b.build();
  }

  private static LabelSelector selector(
      List<LabelSelectorRequirement> exclusions, LabelSelectorRequirement... route) {
    List<LabelSelectorRequirement> all = new ArrayList<>(List.of(route));
    all.addAll(exclusions);
    return new LabelSelectorBuilder().withMatchExpressions(all).build();
  }

  private static MatchCondition condition(String name, String expression) {
    return new MatchConditionBuilder().withName(name).withExpression(expression).build();
  }
}
