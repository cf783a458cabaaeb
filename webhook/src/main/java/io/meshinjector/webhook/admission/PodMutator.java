package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Decision;

/**
 * Renders an injection decision into a JSON Patch. The seam to injector-templates, so the webhook
 * and the CLI do not depend on how the templates are built.
 */
@FunctionalInterface
public interface PodMutator {
  /**
   * The RFC 6902 patch that injects the pod as {@code decision} says; empty when nothing changes.
   *
   * @param received the pod as received, which the patch applies to; not changed
   * @param pod {@code received} bound to a Pod; not changed
   */
  ArrayNode inject(JsonNode received, Pod pod, Decision decision);

  /**
   * The patch that completes an already injected pod sent again (the API server's reinvocation
   * after a later webhook added containers) for those containers; empty when there is nothing to
   * do.
   */
  default ArrayNode complete(JsonNode received, Pod pod) {
    return JsonNodeFactory.instance.arrayNode();
  }
}
