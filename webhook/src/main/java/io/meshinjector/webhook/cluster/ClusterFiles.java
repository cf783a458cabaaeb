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

/**
 * The offline cluster view: Nodes, Namespaces and NodeCapabilities read from {@code --cluster}
 * files (multi-document, or {@code kind: List} such as {@code kubectl get nodes,namespaces,
 * nodecapabilities -o yaml}). Other kinds are ignored, so a whole dump can be passed as it is.
 */
public final class ClusterFiles {
  private ClusterFiles() {}

  public static InMemoryClusterView load(CapabilitiesConfig config, List<Path> files) {
    return InMemoryClusterView.of(config, objects(files));
  }

  /** The Nodes, Namespaces and NodeCapabilities of the files, typed as the view wants them. */
  public static List<HasMetadata> objects(List<Path> files) {
    ObjectMapper mapper = Manifests.json();
    List<HasMetadata> out = new ArrayList<>();
    for (Path file : files) {
      for (JsonNode doc : Manifests.read(file)) {
        collect(mapper, file, doc, out);
      }
    }
    return out;
  }

  private static void collect(ObjectMapper mapper, Path file, JsonNode doc, List<HasMetadata> out) {
    String kind = doc.path("kind").asText("");
    if (kind.endsWith("List") && doc.path("items").isArray()) {
      for (JsonNode item : doc.get("items")) {
        collect(mapper, file, item, out);
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
      throw new ManifestException(file + ": a " + kind + " without metadata.name");
    }
    try {
      out.add(mapper.treeToValue(doc, type));
    } catch (Exception e) {
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
