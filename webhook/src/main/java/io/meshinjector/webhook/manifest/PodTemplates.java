package io.meshinjector.webhook.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Finds the pod templates inside manifest documents (trees), with the workload each belongs to.
 * Works on trees rather than typed objects so that a document is printed back exactly as it was
 * read, except where a template was injected.
 */
public final class PodTemplates {
  /** Kinds whose pod template is at {@code spec.template}. */
  private static final Set<String> SPEC_TEMPLATE =
      Set.of(
          "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job");

  private PodTemplates() {}

  /**
   * A pod template in a document.
   *
   * @param kind the kind of the object that holds it
   * @param name its metadata.name (or generateName), possibly empty
   * @param namespace its namespace, or null when the document names none
   * @param template the node holding {@code metadata} and {@code spec} (the Pod itself for a Pod);
   *     changing it changes the document
   */
  public record Template(String kind, String name, String namespace, ObjectNode template) {
    public String workload(String defaultNamespace) {
      return (namespace == null ? defaultNamespace : namespace) + "/" + kind + "/" + name;
    }
  }

  /** Every pod template of {@code doc}, in document order (the items of a List in order). */
  public static List<Template> find(JsonNode doc) {
    List<Template> out = new ArrayList<>();
    collect(doc, null, out);
    return out;
  }

  private static void collect(JsonNode doc, String listNamespace, List<Template> out) {
    if (doc == null || !doc.isObject()) {
      return;
    }
    String kind = doc.path("kind").asText("");
    String name = doc.path("metadata").path("name").asText("");
    if (name.isEmpty()) {
      name = doc.path("metadata").path("generateName").asText("");
    }
    String namespace = doc.path("metadata").path("namespace").asText(null);
    if (namespace == null || namespace.isEmpty()) {
      namespace = listNamespace;
    }
    if (kind.endsWith("List") && doc.path("items").isArray()) {
      for (JsonNode item : doc.get("items")) {
        collect(item, namespace, out);
      }
      return;
    }
    JsonNode template = null;
    if ("Pod".equals(kind)) {
      template = doc;
    } else if (SPEC_TEMPLATE.contains(kind)) {
      template = doc.path("spec").path("template");
    } else if ("CronJob".equals(kind)) {
      template = doc.path("spec").path("jobTemplate").path("spec").path("template");
    }
    if (template instanceof ObjectNode t && t.path("spec").isObject()) {
      out.add(new Template(kind, name, namespace, t));
    }
  }
}
