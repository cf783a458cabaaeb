package io.meshinjector.templates.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The renderings of the templates, one per combination of the per-pod values a template uses: most
 * pods share them, and rendering plus conversion is most of the cost of an injection. The cached
 * objects are prototypes, copied before they go into a pod. Thread-safe.
 */
public final class RenderCache {
  private static final int MAX_CACHED = 512;

  private final Predicate<String> perPod;
  private final Map<Template, List<String>> perPodNames = new ConcurrentHashMap<>();
  private final Map<Template, Map<List<JsonNode>, RenderedTemplate>> renderings =
      new ConcurrentHashMap<>();

  /**
   * @param perPod whether a value name is set by each render rather than by the config
   */
  public RenderCache(Predicate<String> perPod) {
    this.perPod = perPod;
  }

  /**
   * @throws TemplateException when the template renders something that is no container or volume
   */
  public RenderedTemplate rendered(Template template, Template.Values values) {
    List<String> keyNames = perPodNames.computeIfAbsent(template, this::perPodNamesOf);
    List<JsonNode> key = new ArrayList<>(keyNames.size());
    for (String n : keyNames) {
      key.add(values.get(n));
    }
    Map<List<JsonNode>, RenderedTemplate> byKey =
        renderings.computeIfAbsent(template, x -> new ConcurrentHashMap<>());
    RenderedTemplate rendering = byKey.get(key);
    if (rendering == null) {
      if (byKey.size() >= MAX_CACHED) {
        byKey.clear();
      }
      rendering = RenderedTemplate.of(template, template.render(values));
      byKey.put(key, rendering);
    }
    return rendering;
  }

  private List<String> perPodNamesOf(Template template) {
    List<String> names = new ArrayList<>();
    for (String n : template.names()) {
      if (perPod.test(n)) {
        names.add(n);
      }
    }
    return names;
  }
}
