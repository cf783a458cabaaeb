package io.meshinjector.engine.rules;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.config.InjectionConfig.AwaitField;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.Annotations;
import java.util.Map;
import java.util.Optional;

/**
 * The pod's own word on proxy-await in its mesh's terms (Istio's {@code proxy.istio.io/config:
 * {holdApplicationUntilProxyStarts: true}}). A team moving from the mesh's injector keeps what it
 * asked for there, so where the pod sets the field it wins over {@code
 * mesh-injector.io/proxy-await} and its default; see docs/istio.md.
 */
public final class AwaitFromPod {
  private AwaitFromPod() {}

  /**
   * What the pod decided, and the trace line that says so.
   *
   * @param await whether the proxy holds the app back
   * @param why for {@code explain}: the setting, and what it won over
   */
  public record Decided(boolean await, String why) {}

  /**
   * The pod's decision, when it sets the field.
   *
   * @param annotated what {@code mesh-injector.io/proxy-await} (or its default) asks for
   * @throws IllegalArgumentException naming the annotation and what is wrong with its value
   */
  public static Optional<Decided> decide(
      Map<String, String> annotations, AwaitField from, boolean annotated) {
    return read(annotations, from)
        .map(
            v ->
                new Decided(
                    v,
                    from.annotation()
                        + " "
                        + from.field()
                        + ": "
                        + v
                        + " sets proxy-await "
                        + word(v)
                        + ", over "
                        + Annotations.PROXY_AWAIT
                        + (annotated == v ? " (which agrees)" : " (" + word(annotated) + ")")));
  }

  private static String word(boolean await) {
    return await ? "enabled" : "disabled";
  }

  /**
   * The field's value, when the pod sets it.
   *
   * @throws IllegalArgumentException naming the annotation and what is wrong with its value
   */
  public static Optional<Boolean> read(Map<String, String> annotations, AwaitField from) {
    if (from == null || annotations == null) {
      return Optional.empty();
    }
    String text = annotations.get(from.annotation());
    if (text == null) {
      return Optional.empty();
    }
    JsonNode map;
    try {
      map = PodValue.parseObject(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "annotation "
              + from.annotation()
              + " has invalid value '"
              + text
              + "': "
              + e.getMessage());
    }
    JsonNode v = map.get(from.field());
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    if (!v.isBoolean()) {
      throw new IllegalArgumentException(
          "annotation "
              + from.annotation()
              + " has invalid value for "
              + from.field()
              + ": '"
              + v.asText()
              + "'; allowed values are true, false");
    }
    return Optional.of(v.booleanValue());
  }
}
