package io.meshinjector.webhook.cli;

import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cluster.ClusterFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --config} and {@code --cluster}, shared by serve, inject and explain. */
public final class SourceOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "Configuration YAML (the chart's rendered config); overlays the embedded defaults.")
  Path config;

  @Option(
      names = "--cluster",
      paramLabel = "FILE",
      description =
          "Nodes, Namespaces and NodeCapabilities (YAML or JSON, multi-document or kind: List),"
              + " e.g. kubectl get nodes,namespaces,nodecapabilities -o yaml. Repeatable.")
  List<Path> cluster = new ArrayList<>();

  public MeshConfig meshConfig() {
    if (config == null) {
      return ConfigLoader.defaults();
    }
    String text;
    try {
      text = Files.readString(config);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + config + ": " + e.getMessage(), e);
    }
    return ConfigLoader.fromYaml(config.toString(), text);
  }

  public InMemoryClusterView view(MeshConfig meshConfig) {
    return ClusterFiles.load(meshConfig.engine().capabilities(), cluster);
  }

  public List<Path> clusterFiles() {
    return List.copyOf(cluster);
  }
}
