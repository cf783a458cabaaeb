package io.meshinjector.engine.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A template value read from the pod (a mesh flavour's per-pod annotations, such as Istio's {@code
 * traffic.sidecar.istio.io/includeOutboundIPRanges}): the first of {@code from} that the pod has,
 * else {@code defaultValue}. A value read from the pod must match {@code pattern} whole, or the pod
 * is refused; the pattern keeps an annotation from smuggling extra arguments or privileges into the
 * containers.
 *
 * @param from sources in order, each {@code annotation:<key>} or {@code label:<key>}
 * @param defaultValue used when no source is set; may name other template values ({@code ${..}})
 * @param whenSet what the value is when a source is set, {@code ${from}} being the pod's text (e.g.
 *     Istio's excludeInboundPorts, which keeps its status port: {@code 15020,${from}})
 * @param object the pod's text is a YAML or JSON map (Istio's {@code proxy.istio.io/config}), laid
 *     over the default map key by key; the pattern does not apply to it
 * @param refusedFields keys such a map must not set: in the mesh's own injector they change images
 *     or interception, which here only the config and the checked annotations do
 */
public record PodValue(
    List<Source> from,
    String defaultValue,
    String whenSet,
    Pattern pattern,
    boolean object,
    List<String> refusedFields) {

  // JSON is YAML too, so one reader takes either spelling of the annotation
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * The text as a map.
   *
   * @throws IllegalArgumentException saying what is wrong with it, in words a pod's author can act
   *     on
   */
  public static JsonNode parseObject(String text) {
    JsonNode tree;
    try {
      tree = text.isBlank() ? null : YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "it is not valid YAML or JSON: " + e.getOriginalMessage().lines().findFirst().orElse(""));
    }
    if (tree == null || !tree.isObject()) {
      throw new IllegalArgumentException("it must be a YAML or JSON map");
    }
    return tree;
  }

  /** Whether a pod's text is acceptable: matches the pattern, or parses as a map. */
  public String problem(String text) {
    if (object) {
      JsonNode map;
      try {
        map = parseObject(text);
      } catch (IllegalArgumentException e) {
        return e.getMessage();
      }
      for (String f : refusedFields) {
        if (map.has(f)) {
          return "it sets "
              + f
              + ", which would change what is injected; here only the injector's config (and the"
              + " checked annotations) set that, so remove "
              + f
              + " from it";
        }
      }
      return null;
    }
    return pattern.matcher(text).matches() ? null : "it must match " + pattern.pattern();
  }

  /** Where a pod value comes from. */
  public record Source(boolean label, String key) {
    public static Source parse(String text) {
      int colon = text.indexOf(':');
      String kind = colon < 0 ? "" : text.substring(0, colon);
      String key = colon < 0 ? "" : text.substring(colon + 1);
      if (!(kind.equals("annotation") || kind.equals("label")) || key.isBlank()) {
        throw new IllegalArgumentException(
            "'" + text + "' must be annotation:<key> or label:<key>");
      }
      return new Source(kind.equals("label"), key);
    }

    @Override
    public String toString() {
      return (label ? "label " : "annotation ") + key;
    }
  }

  public PodValue {
    from = List.copyOf(from);
    refusedFields = refusedFields == null ? List.of() : List.copyOf(refusedFields);
    Objects.requireNonNull(defaultValue, "defaultValue");
    Objects.requireNonNull(whenSet, "whenSet");
    Objects.requireNonNull(pattern, "pattern");
  }
}
