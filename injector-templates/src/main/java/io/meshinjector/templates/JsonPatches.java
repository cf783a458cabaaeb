package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.zjsonpatch.DiffFlags;
import io.fabric8.zjsonpatch.JsonDiff;
import java.util.EnumSet;

/** The JSON Patch between an object and its rendered copy, by diff. */
public final class JsonPatches {
  // Only add/remove/replace: a move or copy is valid RFC 6902 but harder to audit, and some
  // patch consumers implement them loosely.
  private static final EnumSet<DiffFlags> FLAGS =
      EnumSet.of(
          DiffFlags.OMIT_MOVE_OPERATION,
          DiffFlags.OMIT_COPY_OPERATION,
          DiffFlags.OMIT_VALUE_ON_REMOVE);

  private JsonPatches() {}

  /** The patch from {@code original} to {@code mutated}; empty when they serialise the same. */
  public static PatchResult diff(HasMetadata original, HasMetadata mutated) {
    return diff(
        PodInjector.JSON.valueToTree(original), (JsonNode) PodInjector.JSON.valueToTree(mutated));
  }

  /**
   * The patch between two JSON trees. Equal subtrees are skipped after one equality check, so a
   * pod's many env vars or large {@code managedFields} cost a comparison, not a diff.
   */
  public static PatchResult diff(JsonNode original, JsonNode mutated) {
    if (original.equals(mutated)) {
      return new PatchResult(JsonNodeFactory.instance.arrayNode());
    }
    return new PatchResult((ArrayNode) JsonDiff.asJson(original, mutated, FLAGS));
  }
}
