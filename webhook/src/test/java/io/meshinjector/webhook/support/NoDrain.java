package io.meshinjector.webhook.support;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@code serve --config} file for a test that closes its server without looking at the drain:
 * {@code webhook.server.drainPeriod: 0s} unless the test's own YAML sets a drain. The shipped
 * default (5 s of /readyz 503 before the listener closes, for the endpoints controller) is what a
 * pod needs and what GracefulShutdownIT and SlowClientsIT measure; elsewhere it is only 5 s of
 * waiting at every close.
 */
public final class NoDrain {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private NoDrain() {}

  /** Writes {@code yaml} (empty for the defaults) with no drain to {@code file}, and returns it. */
  public static Path config(Path file, String yaml) throws IOException {
    ObjectNode root = yaml.isBlank() ? YAML.createObjectNode() : (ObjectNode) YAML.readTree(yaml);
    ObjectNode server = root.withObject("/webhook").withObject("/server");
    if (!server.has("drainPeriod")) {
      server.put("drainPeriod", "0s");
    }
    Files.writeString(file, YAML.writeValueAsString(root));
    return file;
  }
}
