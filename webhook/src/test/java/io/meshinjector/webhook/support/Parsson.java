package io.meshinjector.webhook.support;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonStructure;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;

/**
 * RFC 6902 by Eclipse Parsson: the independent implementation the webhook's patches are checked
 * with, never the code that made them.
 */
public final class Parsson {
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
      return Reviews.JSON.readTree(applied.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
