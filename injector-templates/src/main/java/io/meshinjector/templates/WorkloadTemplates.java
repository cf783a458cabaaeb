package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The pod templates inside manifest documents: Pods, Deployments, StatefulSets, DaemonSets,
 * ReplicaSets, ReplicationControllers, Jobs, CronJobs (batch/v1 and v1beta1) and Lists of them.
 * Works on trees rather than typed objects so that a document is printed back exactly as it was
 * read, except where a template was injected.
 */
public final class WorkloadTemplates {
  /** Kinds whose pod template is at {@code spec.template}. */
  private static final Set<String> SPEC_TEMPLATE =
      Set.of(
          "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job");

  private WorkloadTemplates() {}

  /**
   * A pod template in a document.
   *
   * @param kind the kind of the object that holds it
   * @param name its metadata.name (or generateName), possibly empty
   * @param namespace the object's namespace, else its List's, else the default
   * @param template the node holding {@code metadata} and {@code spec} (the Pod itself for a Pod);
   *     changing it changes the document
   */
  public record PodTemplateRef(String kind, String name, String namespace, ObjectNode template) {
    public PodTemplateRef {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(template, "template");
    }

    /** {@code namespace/Kind/name}, as the engine's decisions name it. */
    public String workload() {
      return namespace + "/" + kind + "/" + name;
    }

    /**
     * Applies RFC 6902 operations made against this template ({@link PodInjector#patch} or {@link
     * PodInjector#completion} of it) in place, so the document around it stays as it was read.
     *
     * @param operations left as they are: their values are the injector's cached renderings, so the
     *     template gets copies (zjsonpatch 7.8 copies each value it adds as well; this copy does
     *     not rely on that)
     */
    public void apply(ArrayNode operations) {
      if (operations.isEmpty()) {
        return;
      }
      JsonNode patched = JsonPatch.apply(operations.deepCopy(), template);
      template.removeAll();
      template.setAll((ObjectNode) patched);
    }
  }

  /**
   * Every pod template of {@code doc}, in document order (the items of a List in order); none for
   * other kinds.
   *
   * @param defaultNamespace the namespace of objects that name none, nor their List
   */
  public static List<PodTemplateRef> podTemplates(JsonNode doc, String defaultNamespace) {
    List<PodTemplateRef> out = new ArrayList<>();
    collect(doc, Objects.requireNonNull(defaultNamespace, "defaultNamespace"), out);
    return out;
  }

  private static void collect(JsonNode doc, String outerNamespace, List<PodTemplateRef> out) {
    if (doc == null || !doc.isObject()) {
      return;
    }
    String kind = doc.path("kind").asText("");
    String name = doc.path("metadata").path("name").asText("");
    if (name.isEmpty()) {
      name = doc.path("metadata").path("generateName").asText("");
    }
    String namespace = doc.path("metadata").path("namespace").asText("");
    if (namespace.isEmpty()) {
      namespace = outerNamespace;
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
      out.add(new PodTemplateRef(kind, name, namespace, t));
    }
  }
}
