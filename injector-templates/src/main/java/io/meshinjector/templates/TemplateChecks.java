package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.templates.TemplateConfig.Templates;
import io.meshinjector.templates.internal.Template;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks that hold the templates to the config at load: every value a template or a pod value's
 * default names exists, and the container names agree with the engine's gate.
 */
final class TemplateChecks {
  private static final String GATE_KEY = "injection.proxyContainerName";

  private TemplateChecks() {}

  /**
   * The proxy template's container name, which must be the one the engine's gate looks for: the
   * gate knows an injected pod by it, so when they differ re-injection meets our own init container
   * and is reported as another mesh's pod instead of as already injected.
   */
  static String proxyContainerName(
      MeshConfig config, Templates templates, Map<String, JsonNode> values, Set<String> render) {
    String gate = config.engine().injection().proxyContainerName();
    String proxy = staticName(templates.proxy(), values, render);
    if (proxy == null) {
      throw new ConfigException(
          "config key '"
              + TemplateSection.key(templates.proxy())
              + "': the proxy container's name must be set and must not depend on the pod, since '"
              + GATE_KEY
              + "' ('"
              + gate
              + "') recognises injected pods by it");
    }
    if (!proxy.equals(gate)) {
      throw new ConfigException(
          "config keys '"
              + GATE_KEY
              + "' and '"
              + TemplateSection.key(templates.proxy())
              + "' disagree on the proxy container's name: '"
              + GATE_KEY
              + "' is '"
              + gate
              + "' but '"
              + TemplateSection.key(templates.proxy())
              + (templates.proxy().name().endsWith(TemplateSection.BUILT_IN)
                  ? "'" + TemplateSection.BUILT_IN
                  : "'")
              + " names it '"
              + proxy
              + "'; set both to one name, or re-injected pods are taken for another mesh's");
    }
    List<String> othersParts = config.engine().injection().otherMeshContainers();
    for (Template t : List.of(templates.proxyInit(), templates.validator())) {
      String name = staticName(t, values, render);
      if (proxy.equals(name)) {
        throw new ConfigException(
            "config key '"
                + TemplateSection.key(t)
                + "': the container is named '"
                + proxy
                + "' like the proxy; a pod may not have two containers of one name");
      }
      // without the proxy beside it, such a container is another injector's leftover: the gate
      // must skip that pod, or the renderer, which never adds a name twice, leaves it uninjected
      // while the decision says injected
      if (name != null && !othersParts.contains(name)) {
        throw new ConfigException(
            "config key '"
                + TemplateSection.key(t)
                + (t.name().endsWith(TemplateSection.BUILT_IN)
                    ? "'" + TemplateSection.BUILT_IN
                    : "'")
                + " names its container '"
                + name
                + "', which 'injection.otherMeshContainers' must list, so that a pod already"
                + " carrying one without the proxy is skipped");
      }
    }
    return proxy;
  }

  /** The container name a template renders for every pod, or null when it has none such. */
  private static String staticName(Template t, Map<String, JsonNode> values, Set<String> render) {
    JsonNode name = t.tree().get("name");
    if (name == null || !name.isTextual()) {
      return null;
    }
    Template only = Template.of(t.name(), JsonNodeFactory.instance.objectNode().set("name", name));
    if (only.names().stream().anyMatch(render::contains)) {
      return null;
    }
    JsonNode rendered = only.render(values::get).get("name");
    return rendered == null || !rendered.isTextual() || rendered.asText().isEmpty()
        ? null
        : rendered.asText();
  }

  // A replaced template that names a value nobody sets fails here, at start-up, not on a pod.
  static void checkNames(Templates templates, Map<String, JsonNode> values, Set<String> render) {
    List<Template> all =
        new java.util.ArrayList<>(
            List.of(
                templates.proxy(),
                templates.proxyInit(),
                templates.validator(),
                templates.volumes(),
                templates.metadata()));
    if (templates.debug() != null) {
      all.add(templates.debug());
    }
    for (Template t : all) {
      for (String n : t.names()) {
        if (!values.containsKey(n) && !TemplateConfig.isRenderValue(n, render)) {
          throw new ConfigException(
              "config key '"
                  + TemplateSection.key(t)
                  + "': the template uses '${"
                  + n
                  + "}', which is no value; values are the keys of proxy, proxyInit, validator,"
                  + " proxyAwait, templates.values and "
                  + new TreeSet<>(render));
        }
      }
    }
  }

  /** A pod value's default may name the config's values and the render values, nothing else. */
  static void checkDefault(String name, PodValue v, Map<String, JsonNode> values) {
    Template t;
    try {
      t = TemplateConfig.defaultTemplate(name, v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "config key 'injection.podValues." + name + ".default': " + e.getMessage(), e);
    }
    for (String n : t.names()) {
      if (!values.containsKey(n)
          && !TemplateConfig.RENDER_VALUES.contains(n)
          && !n.equals("from")) {
        throw new ConfigException(
            "config key 'injection.podValues."
                + name
                + "' uses '${"
                + n
                + "}', which is no value a default can use");
      }
    }
  }
}
