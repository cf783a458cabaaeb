package io.meshinjector.plane;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonStructure;
import java.io.StringReader;
import java.io.UncheckedIOException;

/**
 * RFC 6902 by Eclipse Parsson: the independent implementation this module's tests apply the
 * webhook's patches with, never the code that made them. The webhook's and injector-templates'
 * tests have their own (webhook's {@code support.Parsson}, {@code templates.Injected.applied}): the
 * modules share no test code.
 */
public final class Parsson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Parsson() {}

  /**
   * {@code patch} applied to a copy of {@code target}.
   *
   * @throws JsonException when the patch does not apply
   */
  public static JsonNode apply(JsonNode patch, JsonNode target) {
    JsonStructure applied =
        Json.createPatch(Json.createReader(new StringReader(patch.toString())).readArray())
            .apply((JsonStructure) Json.createReader(new StringReader(target.toString())).read());
    try {
      return JSON.readTree(applied.toString());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
