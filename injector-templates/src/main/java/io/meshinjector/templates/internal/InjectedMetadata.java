package io.meshinjector.templates.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The labels and annotations the metadata template writes, and what it is told was injected. */
public final class InjectedMetadata {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private InjectedMetadata() {}

  /**
   * The pod's values plus what was injected, for a mesh that records it on the pod (Istio's {@code
   * sidecar.istio.io/status}): {@code injected.initContainers}, {@code injected.containers} and
   * {@code injected.volumes}, each null when empty.
   */
  public static Template.Values values(
      Template.Values pod,
      String redirectName,
      String proxyName,
      boolean nativeSidecar,
      ArrayNode volumes) {
    Map<String, JsonNode> injected = new HashMap<>(4);
    injected.put(
        "injected.initContainers",
        names(nativeSidecar ? List.of(redirectName, proxyName) : List.of(redirectName)));
    injected.put("injected.containers", names(nativeSidecar ? List.of() : List.of(proxyName)));
    injected.put("injected.volumes", volumes.isEmpty() ? F.nullNode() : volumes);
    return name -> {
      JsonNode v = injected.get(name);
      return v != null ? v : pod.get(name);
    };
  }

  /** A rendered metadata map's entries as text, in the template's order. */
  public static Map<String, String> entries(JsonNode rendered) {
    Map<String, String> out = new LinkedHashMap<>();
    if (rendered != null && rendered.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = rendered.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        out.put(e.getKey(), e.getValue().asText());
      }
    }
    return out;
  }

  private static JsonNode names(List<String> names) {
    if (names.isEmpty()) {
      return F.nullNode();
    }
    ArrayNode out = F.arrayNode();
    names.forEach(out::add);
    return out;
  }
}
