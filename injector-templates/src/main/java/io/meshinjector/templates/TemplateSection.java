package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.templates.TemplateConfig.Templates;
import io.meshinjector.templates.internal.Template;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * The {@code templates} section: each template as the config gives it, or the mesh's built-in one,
 * the extra values under {@code templates.values}, and those an IPv6 plan lays over them ({@code
 * templates.ipv6Values}).
 */
final class TemplateSection {
  static final String RESOURCES = "/io/meshinjector/templates/";

  /** Where each mesh's built-in templates live, under {@link #RESOURCES}. */
  private static final Map<String, String> TEMPLATE_SETS = Map.of("linkerd", "", "istio", "istio/");

  /** Ends the name of a template that was not replaced, in messages. */
  static final String BUILT_IN = " (built-in)";

  private TemplateSection() {}

  /**
   * @param mesh the config's {@code mesh}, whose built-in templates stand in for those not given
   */
  static Templates templates(ConfigSection t, String mesh) {
    String set = TEMPLATE_SETS.get(mesh);
    if (set == null) {
      throw new ConfigException("config key 'mesh' must be one of " + TEMPLATE_SETS.keySet());
    }
    return new Templates(
        template(t, "proxy", set + "proxy.yaml"),
        template(t, "proxyInit", set + "proxy-init.yaml"),
        template(t, "validator", set + "validator.yaml"),
        template(t, "volumes", set + "volumes.yaml"),
        template(t, "metadata", set + "metadata.yaml"),
        set.isEmpty() ? template(t, "debug", "debug.yaml") : optional(t, "debug"));
  }

  /** A template the mesh has no built-in one of: the config's, or null. */
  private static Template optional(ConfigSection s, String key) {
    JsonNode given = s.raw(key);
    if (given == null || given.isNull() || (given.isTextual() && given.asText().isBlank())) {
      return null;
    }
    return template(s, key, null);
  }

  /** {@code templates.values}: a map of values the templates may use besides the sections'. */
  static JsonNode values(ConfigSection t) {
    JsonNode extra = t.raw("values");
    if (extra == null || !extra.isObject()) {
      throw new ConfigException("config key 'templates.values' must be a map");
    }
    return extra;
  }

  /**
   * {@code templates.ipv6Values}: values laid over {@code templates.values}, map by map, for a pod
   * whose decision redirects IPv6 too (its plan's {@code ipv6}), where the mesh's own IPv6 switch
   * is a value rather than a template's (Istio's {@code ISTIO_DUAL_STACK} proxy metadata). A value
   * it sets must not be set in {@code templates.values} too: the pods of an IPv4 plan would carry
   * it, and the rendering would no longer follow the plan.
   *
   * @param values {@code templates.values}
   */
  static JsonNode ipv6Values(ConfigSection t, JsonNode values) {
    JsonNode v6 = t.raw("ipv6Values");
    if (v6 == null || !v6.isObject()) {
      throw new ConfigException("config key 'templates.ipv6Values' must be a map");
    }
    checkNotSetTwice(v6, values, "");
    return v6;
  }

  private static void checkNotSetTwice(JsonNode v6, JsonNode values, String path) {
    for (Iterator<Map.Entry<String, JsonNode>> it = v6.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = path + "." + e.getKey();
      JsonNode mine = values.get(e.getKey());
      if (mine == null || mine.isNull()) {
        continue;
      }
      if (mine.isObject() && e.getValue().isObject()) {
        checkNotSetTwice(e.getValue(), mine, key);
      } else {
        throw new ConfigException(
            "config key 'templates.values"
                + key
                + "' is also set by 'templates.ipv6Values"
                + key
                + "', which applies per pod, to those whose decision redirects IPv6 too (where a"
                + " node's pod addresses are unknown, proxyInit.ipv6 says whether it does); remove"
                + " it from templates.values");
      }
    }
  }

  /** The config key that gives the template, for messages. */
  static String key(Template t) {
    return t.name().replace(BUILT_IN, "");
  }

  private static Template template(ConfigSection s, String key, String resource) {
    JsonNode given = s.raw(key);
    String name = s.key(key);
    if (given == null || given.isNull() || (given.isTextual() && given.asText().isBlank())) {
      return Template.parse(name + BUILT_IN, readResource(resource));
    }
    try {
      return given.isTextual() ? Template.parse(name, given.asText()) : Template.of(name, given);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("config key '" + name + "': " + e.getMessage(), e);
    }
  }

  private static String readResource(String name) {
    try (InputStream in = TemplateConfig.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCES + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
