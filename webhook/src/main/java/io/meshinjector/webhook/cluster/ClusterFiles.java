package io.meshinjector.webhook.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.webhook.manifest.ManifestException;
import io.meshinjector.webhook.manifest.Manifests;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offline cluster view: Nodes, Namespaces and NodeCapabilities read from {@code --cluster}
 * files (multi-document, or {@code kind: List} such as {@code kubectl get nodes,namespaces,
 * nodecapabilities -o yaml}). Other kinds are ignored, so a whole dump can be passed as it is.
 */
public final class ClusterFiles {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterFiles.class);

  private ClusterFiles() {}

  /** The view of the files; a NodeCapability that is partly or wholly unusable is logged. */
  public static InMemoryClusterView load(CapabilitiesConfig config, List<Path> files) {
    return load(config, files, LOG::warn);
  }

  /**
   * @param warnings told of every NodeCapability that counts as unknown in part or whole, and why
   */
  public static InMemoryClusterView load(
      CapabilitiesConfig config, List<Path> files, Consumer<String> warnings) {
    return InMemoryClusterView.snapshot(config, objects(files, warnings), warnings);
  }

  /** The view of one document's text (YAML or JSON); {@code origin} names it in messages. */
  public static InMemoryClusterView parse(
      CapabilitiesConfig config, String text, String origin, Consumer<String> warnings) {
    ObjectMapper mapper = Manifests.json();
    List<HasMetadata> out = new ArrayList<>();
    for (JsonNode doc : Manifests.parse(text, origin)) {
      collect(mapper, Path.of(origin), doc, out, warnings);
    }
    return InMemoryClusterView.snapshot(config, out, warnings);
  }

  /** The Nodes, Namespaces and NodeCapabilities of the files, typed as the view wants them. */
  private static List<HasMetadata> objects(List<Path> files, Consumer<String> warnings) {
    ObjectMapper mapper = Manifests.json();
    List<HasMetadata> out = new ArrayList<>();
    for (Path file : files) {
      for (JsonNode doc : Manifests.read(file)) {
        collect(mapper, file, doc, out, warnings);
      }
    }
    return out;
  }

  private static void collect(
      ObjectMapper mapper,
      Path file,
      JsonNode doc,
      List<HasMetadata> out,
      Consumer<String> warnings) {
    String kind = doc.path("kind").asText("");
    if (kind.endsWith("List") && doc.path("items").isArray()) {
      for (JsonNode item : doc.get("items")) {
        collect(mapper, file, item, out, warnings);
      }
      return;
    }
    Class<? extends HasMetadata> type =
        switch (kind) {
          case "Node" -> Node.class;
          case "Namespace" -> Namespace.class;
          case "NodeCapability" -> GenericKubernetesResource.class;
          default -> null;
        };
    if (type == null) {
      return;
    }
    if (doc.path("metadata").path("name").asText("").isEmpty()) {
      if (type == GenericKubernetesResource.class) {
        warnings.accept(file + ": a NodeCapability without metadata.name ignored");
        return;
      }
      throw new ManifestException(file + ": a " + kind + " without metadata.name");
    }
    try {
      out.add(mapper.treeToValue(doc, type));
    } catch (Exception e) {
      if (type == GenericKubernetesResource.class) {
        // anyone may write a NodeCapability: a broken one counts as unknown, it stops nothing
        warnings.accept(
            file
                + ": NodeCapability '"
                + doc.path("metadata").path("name").asText()
                + "' is not a valid object, its verdicts count as unknown: "
                + e.getMessage().lines().findFirst().orElse(""));
        return;
      }
      throw new ManifestException(
          file
              + ": "
              + kind
              + " "
              + doc.path("metadata").path("name").asText()
              + " is not valid: "
              + e.getMessage().lines().findFirst().orElse(""));
    }
  }
}
