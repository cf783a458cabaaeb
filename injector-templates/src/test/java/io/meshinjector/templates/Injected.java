package io.meshinjector.templates;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.rfc6902.Parsson;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * What users get: the operations {@link PodInjector#patch} and {@link PodInjector#completion} make
 * (the webhook sends them, the CLI applies them), applied by an independent RFC 6902
 * implementation, Eclipse Parsson, so a test never checks the patch with the code that made it.
 */
final class Injected {
  private Injected() {}

  /** {@code pod} as the webhook sees it injected: its own tree, patched, read back as a Pod. */
  static Pod pod(PodInjector injector, Pod pod, Decision decision) {
    JsonNode received = Fixtures.JSON.valueToTree(pod);
    return read(applied(received, injector.patch(received, pod, decision)));
  }

  /** {@code pod} after a reinvocation: its own tree with {@link PodInjector#completion} applied. */
  static Pod completed(PodInjector injector, Pod pod) {
    JsonNode received = Fixtures.JSON.valueToTree(pod);
    return read(applied(received, injector.completion(received, pod)));
  }

  /**
   * A copy of {@code doc} with every pod template patched as {@code inject} patches it: each
   * template bound as the webhook binds it, {@code decide} given its workload and pod, and the
   * operations made against the template applied to it; a template given no operation stays as it
   * was read.
   */
  static JsonNode document(
      JsonNode doc,
      String defaultNamespace,
      PodInjector injector,
      BiFunction<String, Pod, Decision> decide) {
    JsonNode copy = doc.deepCopy();
    for (WorkloadTemplates.PodTemplateRef ref :
        WorkloadTemplates.podTemplates(copy, defaultNamespace)) {
      Pod pod = bind(ref);
      PatchResult patch = injector.patch(ref.template(), pod, decide.apply(ref.workload(), pod));
      if (!patch.patch().isEmpty()) {
        ObjectNode patched = (ObjectNode) applied(ref.template(), patch);
        ref.template().removeAll();
        ref.template().setAll(patched);
      }
    }
    return copy;
  }

  /**
   * The template's pod as the webhook decides on it: read as a Pod, in the owner's namespace (the
   * pods a workload creates live there, whatever its template says), as {@code PodAdmission.bind}
   * does.
   */
  static Pod bind(WorkloadTemplates.PodTemplateRef ref) {
    Pod pod = read(ref.template());
    if (pod.getMetadata() == null) {
      pod.setMetadata(new ObjectMeta());
    }
    pod.getMetadata().setNamespace(ref.namespace());
    return pod;
  }

  /** Whether {@code pod} has a container or an init container called {@code name}. */
  static boolean hasContainer(Pod pod, String name) {
    PodSpec spec = pod.getSpec();
    return spec != null
        && Stream.concat(
                Stream.ofNullable(spec.getContainers()).flatMap(List::stream),
                Stream.ofNullable(spec.getInitContainers()).flatMap(List::stream))
            .anyMatch(c -> name.equals(c.getName()));
  }

  /** {@code tree} with {@code patch} applied by Parsson; {@code tree} is not changed. */
  static JsonNode applied(JsonNode tree, PatchResult patch) {
    return applied(tree, patch.patch().toString());
  }

  /** {@code pod}'s own tree with {@code operations} (RFC 6902, as JSON) applied by Parsson. */
  static JsonNode applied(Pod pod, String operations) {
    return applied((JsonNode) Fixtures.JSON.valueToTree(pod), operations);
  }

  /** {@code tree} with {@code operations} (RFC 6902, as JSON) applied by Parsson. */
  static JsonNode applied(JsonNode tree, String operations) {
    return Parsson.apply(operations, tree);
  }

  private static Pod read(JsonNode tree) {
    try {
      return Fixtures.JSON.treeToValue(tree, Pod.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
