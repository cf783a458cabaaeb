package io.meshinjector.templates;

import static io.meshinjector.templates.internal.ModelJson.MAPPER;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Decision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;

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
     * The pod the engine decides on, a new object, in the owner's namespace: the pods a workload
     * creates live there, whatever its template says.
     *
     * @throws IllegalArgumentException when the template does not read as a Pod
     */
    public Pod toPod() {
      Pod pod;
      try {
        pod = MAPPER.treeToValue(template, Pod.class);
      } catch (JsonProcessingException | IllegalArgumentException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        throw new IllegalArgumentException(
            workload()
                + ": the pod template is not valid: "
                + message.lines().findFirst().orElse(""),
            e);
      }
      if (pod.getMetadata() == null) {
        pod.setMetadata(new ObjectMeta());
      }
      pod.getMetadata().setNamespace(namespace);
      return pod;
    }

    /**
     * Writes a rendered pod's metadata and spec into the template, in place; the namespace {@link
     * #toPod} set is written only where the template had one.
     */
    public void apply(Pod rendered) {
      if (rendered.getMetadata() != null) {
        ObjectNode meta = MAPPER.valueToTree(rendered.getMetadata());
        if (!template.path("metadata").has("namespace")) {
          meta.remove("namespace");
        }
        if (template.has("metadata")) {
          template.set("metadata", meta);
        } else if (!meta.isEmpty()) {
          insertBeforeSpec(meta);
        }
      }
      template.set("spec", MAPPER.valueToTree(rendered.getSpec()));
    }

    // A new key goes last, but objects everywhere put metadata before spec.
    private void insertBeforeSpec(ObjectNode meta) {
      Map<String, JsonNode> fields = new LinkedHashMap<>();
      template.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue()));
      template.removeAll();
      fields.forEach(
          (key, value) -> {
            if (key.equals("spec")) {
              template.set("metadata", meta);
            }
            template.set(key, value);
          });
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

  /**
   * A copy of {@code doc} with every pod template rendered: {@code decide} gets the workload and
   * the pod of each template. A template whose rendering changes nothing stays as it was read.
   */
  public static JsonNode inject(
      JsonNode doc,
      String defaultNamespace,
      PodInjector injector,
      BiFunction<String, Pod, Decision> decide) {
    JsonNode copy = doc.deepCopy();
    for (PodTemplateRef ref : podTemplates(copy, defaultNamespace)) {
      Pod pod = ref.toPod();
      Pod rendered = injector.render(pod, decide.apply(ref.workload(), pod));
      if (!rendered.equals(pod)) {
        ref.apply(rendered);
      }
    }
    return copy;
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
