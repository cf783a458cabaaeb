package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.webhook.manifest.Manifests;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code -f} and {@code -n}, shared by inject and explain. */
public final class ManifestOptions {
  @Option(
      names = {"-f", "--filename"},
      paramLabel = "FILE",
      description = "Manifests (YAML or JSON, multi-document); - reads standard input.")
  String file;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      defaultValue = "default",
      description =
          "Namespace of objects that name none (default: ${DEFAULT-VALUE}); for explain without"
              + " -f, the namespace to preview.")
  String namespace;

  /** Whether {@code -f} was given; inject requires it, explain without it previews {@code -n}. */
  public boolean hasFile() {
    return file != null;
  }

  /** The documents of {@code -f}, in input order. */
  public List<JsonNode> documents() {
    return Manifests.read(file, System.in);
  }

  public String namespace() {
    return namespace;
  }
}
