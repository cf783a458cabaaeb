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
import java.util.Map;

/**
 * The {@code templates} section: each template as the config gives it, or the mesh's built-in one,
 * and the extra values under {@code templates.values}.
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
