package io.meshinjector.rfc6902;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.io.UncheckedIOException;

/**
 * RFC 6902 by Eclipse Parsson: the independent implementation every module's tests apply the
 * injector's patches with, never the code that made them. It is test code shared by the modules
 * that check patches ({@code injector-templates}, {@code webhook}, {@code tests}), added to their
 * test sources by {@code build-helper-maven-plugin} as {@code fuzz-support} is: one copy, and no
 * test jar whose resources would leak into another module's tests.
 */
public final class Parsson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Parsson() {}

  /**
   * {@code patch} (an RFC 6902 array) applied to a copy of {@code target}; {@code target} is not
   * changed.
   *
   * @throws JsonException when the patch does not apply
   */
  public static JsonNode apply(JsonNode patch, JsonNode target) {
    return apply(patch.toString(), target);
  }

  /**
   * {@code operations} (an RFC 6902 array, as JSON text) applied to a copy of {@code target}.
   *
   * @throws JsonException when the operations are not an array or do not apply
   */
  public static JsonNode apply(String operations, JsonNode target) {
    JsonStructure applied =
        Json.createPatch(Json.createReader(new StringReader(operations)).readArray())
            .apply((JsonStructure) Json.createReader(new StringReader(target.toString())).read());
    try {
      return JSON.readTree(applied.toString());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
