package io.meshinjector.webhook.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/** AdmissionReviews as the API server sends them, built from the test resources. */
public final class Reviews {
  public static final ObjectMapper JSON = new ObjectMapper();

  private Reviews() {}

  /** A file of the project's examples/ folder, which the README and these tests share. */
  public static Path example(String name) {
    return Path.of("..", "examples", name).toAbsolutePath().normalize();
  }

  /** A cluster file of the tests' own, under {@code src/test/resources/cluster/}. */
  public static Path testCluster(String name) {
    return Path.of("src", "test", "resources", "cluster", name).toAbsolutePath().normalize();
  }

  public static JsonNode exampleJson(String name) {
    try (InputStream in = Files.newInputStream(example(name))) {
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A Pod CREATE review for {@code pod} in {@code namespace}, with a fresh UID. */
  public static ObjectNode podCreate(String apiVersion, String namespace, JsonNode pod) {
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", apiVersion);
    review.put("kind", "AdmissionReview");
    ObjectNode req = review.putObject("request");
    req.put("uid", UUID.randomUUID().toString());
    ObjectNode kind = req.putObject("kind");
    kind.put("group", "");
    kind.put("version", "v1");
    kind.put("kind", "Pod");
    ObjectNode resource = req.putObject("resource");
    resource.put("group", "");
    resource.put("version", "v1");
    resource.put("resource", "pods");
    req.put("namespace", namespace);
    req.put("operation", "CREATE");
    req.set("object", pod);
    return review;
  }

  /**
   * Posts {@code review} to {@code mutate} over {@code client} as the API server does, and returns
   * its {@code response} after checking the status and that the UID came back.
   */
  public static JsonNode post(
      java.net.http.HttpClient client, java.net.URI mutate, ObjectNode review) throws Exception {
    java.net.http.HttpResponse<String> r =
        Tls.send(
            client,
            java.net.http.HttpRequest.newBuilder(mutate)
                .header("Content-Type", "application/json")
                .POST(
                    java.net.http.HttpRequest.BodyPublishers.ofByteArray(
                        JSON.writeValueAsBytes(review)))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString(),
            () -> {});
    org.assertj.core.api.Assertions.assertThat(r.statusCode()).isEqualTo(200);
    JsonNode response = JSON.readTree(r.body()).path("response");
    org.assertj.core.api.Assertions.assertThat(response.path("uid").asText())
        .isEqualTo(review.at("/request/uid").asText());
    return response;
  }

  /** The example pod of examples/admission-review.json (checkout, RHEL pool, in shop). */
  public static ObjectNode examplePod() {
    return (ObjectNode)
        exampleJson("admission-review.json").path("request").path("object").deepCopy();
  }
}
