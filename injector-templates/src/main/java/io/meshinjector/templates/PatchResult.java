package io.meshinjector.templates;

import com.fasterxml.jackson.databind.node.ArrayNode;
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

  public boolean isEmpty() {
    return patch.isEmpty();
  }

  /** The patch as compact JSON, as an AdmissionResponse carries it (base64-encoded there). */
  public String json() {
    return patch.toString();
  }
}
