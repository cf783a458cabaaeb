package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.texts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Webhook configurations as the API server applies them to a pod's CREATE, for the chart's tests:
 * the entry's namespaceSelector on the namespace's labels, its objectSelector on the pod's, and its
 * matchConditions (CEL) on the pod; and the tags' configurations as the webhook writes them.
 */
final class WebhookRoutes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WebhookRoutes() {}

  /** A rendered configuration as the fabric8 model the webhook's code works on. */
  static MutatingWebhookConfiguration model(JsonNode mwc) {
    try {
      return JSON.treeToValue(mwc, MutatingWebhookConfiguration.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A model object as a tree, the form every comparison here is made in. */
  static JsonNode tree(Object model) {
    return JSON.valueToTree(model);
  }

  /**
   * The configuration of tag {@code tag} pointing at the revision whose configuration the chart
   * rendered as {@code revision}, as the webhook writes it (TagWebhooks). The API server gives
   * every object a uid, which the tag's owner reference needs; a rendered one has none.
   */
  static JsonNode tag(String tag, JsonNode revision) {
    MutatingWebhookConfiguration mwc = model(revision);
    mwc.getMetadata().setUid("uid-of-" + mwc.getMetadata().getName());
    return tree(TagWebhooks.pointing(tag, mwc, null));
  }

  /** Whether the API server calls {@code webhook} for a CREATE of {@code pod} in that namespace. */
  static boolean calls(
      JsonNode webhook, Map<String, String> namespaceLabels, Map<String, Object> pod) {
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) pod.get("metadata");
    @SuppressWarnings("unchecked")
    Map<String, String> podLabels = (Map<String, String>) metadata.getOrDefault("labels", Map.of());
    if (!selects(webhook.path("namespaceSelector"), namespaceLabels)
        || !selects(webhook.path("objectSelector"), podLabels)) {
      return false;
    }
    for (JsonNode condition : webhook.path("matchConditions")) {
      String expression = condition.path("expression").asText();
      try {
        if (!MatchConditions.holds(expression, pod)) {
          return false;
        }
      } catch (Exception e) {
        // the API server would apply the entry's failurePolicy; none of ours may ever error
        throw new AssertionError("matchCondition " + condition.path("name") + " failed: " + e, e);
      }
    }
    return true;
  }

  /** A label selector as the API server reads it: missing or empty selects everything. */
  static boolean selects(JsonNode selector, Map<String, String> labels) {
    Iterator<Map.Entry<String, JsonNode>> it = selector.path("matchLabels").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().asText().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    for (JsonNode e : selector.path("matchExpressions")) {
      String value = labels.get(e.path("key").asText());
      List<String> values = texts(e.path("values"));
      boolean holds =
          switch (e.path("operator").asText()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> throw new AssertionError("operator " + e);
          };
      if (!holds) {
        return false;
      }
    }
    return true;
  }

  /** The path an entry's client calls: the service's path, or the URL's. */
  static String path(JsonNode webhook) {
    JsonNode client = webhook.path("clientConfig");
    if (client.has("url")) {
      String url = client.path("url").asText();
      return java.net.URI.create(url).getPath();
    }
    return client.at("/service/path").asText();
  }
}
