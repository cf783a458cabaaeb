package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.templates.TemplateConfig.Templates;
import io.meshinjector.templates.internal.Template;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The digest of a release's injection config: the templates (built-in or replaced, as parsed), the
 * values they render from (and those the pods of an IPv6 plan render with instead), the pod values'
 * definitions and whether the mesh's annotations apply. Not the injector's version (recorded apart,
 * and a new injector with the same templates and values injects the same pod) and nothing of the
 * engine's decision (the per-node path is chosen per pod). Computed once per config; every injected
 * pod records it, so {@code check} can name the pods injected with a config the release no longer
 * has.
 */
public final class ConfigDigest {
  /** The values left out: the injector's version is recorded on the pod by itself. */
  static final String VERSION_VALUE = "injector.version";

  private static final int HEX_CHARS = 16;

  private ConfigDigest() {}

  /**
   * @param podValues the config's {@code injection.podValues} tree (missing when none)
   * @return {@code sha256:} and the first 16 hex digits of the SHA-256 of the canonical JSON
   */
  static String of(
      Templates templates,
      Map<String, JsonNode> values,
      Map<String, JsonNode> ipv6Values,
      JsonNode podValues,
      boolean linkerdAnnotations) {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    ObjectNode t = doc.putObject("templates");
    put(t, "proxy", templates.proxy());
    put(t, "proxyInit", templates.proxyInit());
    put(t, "validator", templates.validator());
    put(t, "volumes", templates.volumes());
    put(t, "metadata", templates.metadata());
    put(t, "debug", templates.debug());
    ObjectNode v = doc.putObject("values");
    new TreeMap<>(values)
        .forEach(
            (k, value) -> {
              if (!VERSION_VALUE.equals(k)) {
                v.set(k, value);
              }
            });
    // what the pods of an IPv6 plan render with instead changes what they are injected with
    ObjectNode v6 = doc.putObject("ipv6Values");
    new TreeMap<>(ipv6Values).forEach(v6::set);
    doc.set("podValues", podValues == null ? JsonNodeFactory.instance.nullNode() : podValues);
    doc.put("linkerdAnnotations", linkerdAnnotations);
    StringBuilder canonical = new StringBuilder();
    canonical(doc, canonical);
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256")
              .digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(sha).substring(0, HEX_CHARS);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void put(ObjectNode into, String key, Template t) {
    into.set(key, t == null ? JsonNodeFactory.instance.nullNode() : t.tree());
  }

  /**
   * Object keys sorted at every level, so that the order a config file or a template lists them in
   * (which changes nothing injected) does not change the digest.
   */
  static void canonical(JsonNode n, StringBuilder out) {
    if (n.isObject()) {
      TreeMap<String, JsonNode> sorted = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        sorted.put(e.getKey(), e.getValue());
      }
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        out.append(JsonNodeFactory.instance.textNode(e.getKey()).toString()).append(':');
        canonical(e.getValue(), out);
      }
      out.append('}');
    } else if (n.isArray()) {
      out.append('[');
      for (int i = 0; i < n.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        canonical(n.get(i), out);
      }
      out.append(']');
    } else {
      out.append(n.toString());
    }
  }
}
