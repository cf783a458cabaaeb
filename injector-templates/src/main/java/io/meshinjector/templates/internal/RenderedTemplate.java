package io.meshinjector.templates.internal;

import static io.meshinjector.templates.internal.ModelJson.MAPPER;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;

/**
 * One rendering of a template: the tree of the metadata template; the volumes of the volumes
 * template, as model objects and as they serialise; a container template's container as a model
 * object, and as it serialises in the role the patch gives it (computed on first use: the proxy's
 * rendering is used as a sidecar or as a container, the redirect's as it is). The patch carries the
 * model's form (a port as a number, no field the model does not know), which is what the API server
 * reads. Cached renderings of per-pod values turn over, so each holds one form.
 */
public final class RenderedTemplate {
  private final JsonNode tree;
  private final Container container;
  private final List<Volume> volumes;
  private final List<JsonNode> volumeTrees;
  private volatile JsonNode asIs;
  private volatile JsonNode nativeSidecar;
  private volatile JsonNode regular;

  private RenderedTemplate(
      JsonNode tree, Container container, List<Volume> volumes, List<JsonNode> volumeTrees) {
    this.tree = tree;
    this.container = container;
    this.volumes = volumes;
    this.volumeTrees = volumeTrees;
  }

  /**
   * @throws TemplateException when the tree holds something that is no container or volume
   */
  public static RenderedTemplate of(Template template, JsonNode tree) {
    if (tree.isArray()) {
      List<Volume> volumes = new ArrayList<>();
      List<JsonNode> volumeTrees = new ArrayList<>();
      for (JsonNode v : tree) {
        Volume volume = convert(v, Volume.class, template.name());
        volumes.add(volume);
        volumeTrees.add(MAPPER.valueToTree(volume));
      }
      return new RenderedTemplate(null, null, List.copyOf(volumes), List.copyOf(volumeTrees));
    }
    if (tree.has("name")) {
      return new RenderedTemplate(
          null, convert(tree, Container.class, template.name()), List.of(), List.of());
    }
    return new RenderedTemplate(tree, null, List.of(), List.of());
  }

  public JsonNode tree() {
    if (tree == null) {
      throw new TemplateException("template does not render an object of labels and annotations");
    }
    return tree;
  }

  public List<Volume> volumes() {
    return volumes;
  }

  public List<JsonNode> volumeTrees() {
    return volumeTrees;
  }

  public Container container() {
    if (container == null) {
      throw new TemplateException("template does not render a container");
    }
    return container;
  }

  /** The container as rendered. */
  public JsonNode asIs() {
    JsonNode t = asIs;
    if (t == null) {
      asIs = t = MAPPER.valueToTree(container());
    }
    return t;
  }

  /** The container with {@code restartPolicy: Always}. */
  public JsonNode nativeSidecar() {
    JsonNode t = nativeSidecar;
    if (t == null) {
      nativeSidecar = t = withRestartPolicy("Always");
    }
    return t;
  }

  /** The container without a restart policy. */
  public JsonNode regular() {
    JsonNode t = regular;
    if (t == null) {
      regular = t = withRestartPolicy(null);
    }
    return t;
  }

  private JsonNode withRestartPolicy(String policy) {
    return MAPPER.valueToTree(new ContainerBuilder(container()).withRestartPolicy(policy).build());
  }

  private static <T> T convert(JsonNode node, Class<T> type, String what) {
    try {
      return MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new TemplateException(
          "template '"
              + what
              + "' does not render a "
              + type.getSimpleName()
              + ": "
              + e.getMessage());
    }
  }
}
