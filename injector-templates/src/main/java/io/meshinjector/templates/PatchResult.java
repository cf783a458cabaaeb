package io.meshinjector.templates;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Objects;

/**
 * An RFC 6902 JSON Patch that turns the original object into the rendered one.
 *
 * @param patch the operations; empty when nothing changed
 */
public record PatchResult(ArrayNode patch) {
  public PatchResult {
    Objects.requireNonNull(patch, "patch");
  }

  /** No operation: the pod is admitted as it is. */
  public static PatchResult empty() {
    return new PatchResult(JsonNodeFactory.instance.arrayNode());
  }
}
