package io.meshinjector.webhook.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.fuzz.Fuzz;
import io.meshinjector.fuzz.JsonMutations;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.admission.AdmissionReply;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.manifest.ManifestException;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.server.RequestBody;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The webhook's two readers of outside input: AdmissionReviews from the API server, through the
 * codec and the whole service (decision and rendering included), and the CLI's YAML manifests.
 */
class AdmissionFuzzTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void admissionReviewsGetAnAnswerNeverA500() throws Exception {
    AdmissionEndpoint service =
        InProcessEndpoint.overExampleCluster(
            ConfigLoader.fromYaml("config.yaml", "webhook:\n  maxRequestBytes: " + (1 << 20)));
    JsonNode example = Reviews.exampleJson("admission-review.json");
    List<byte[]> seeds =
        List.of(
            JSON.writeValueAsBytes(example),
            JSON.writeValueAsBytes(
                Reviews.podCreate("admission.k8s.io/v1beta1", "shop", Reviews.examplePod())),
            JSON.writeValueAsBytes(
                Reviews.podCreate("admission.k8s.io/v1", "legacy-apps", Reviews.examplePod())));
    Fuzz.target("admission-review", seeds)
        .structural(new JsonMutations(JSON, JSON))
        .run(
            in -> {
              AdmissionReply reply = service.answer("application/json", RequestBody.of(in));
              assertThat(reply.httpStatus()).as("status").isIn(200, 400, 413, 415, 422);
              assertThat(service.encode(reply).length()).isPositive();
              if (reply instanceof AdmissionReply.Patched patched) {
                // made against the object as received, the patch applies to it, whatever its
                // shape, and gives a Pod
                JsonNode applied = Parsson.apply(patched.patch(), patched.request().object());
                assertThat(JSON.treeToValue(applied, Pod.class).getSpec()).isNotNull();
              }
            });
  }

  @Test
  void manifestsReadOrFailWithAManifestError() throws Exception {
    List<byte[]> seeds =
        List.of(
            Files.readAllBytes(Reviews.example("deployment.yaml")),
            Files.readAllBytes(Reviews.example("cluster.yaml")),
            "a: &x [1, 2]\nb: *x\n<<: {c: 1}\n---\n!!binary aGVsbG8=\n---\n{json: [1]}\n"
                .getBytes(StandardCharsets.UTF_8));
    Fuzz.target("manifest-yaml", seeds)
        .structural(new JsonMutations(YAML, YAML))
        .dictionary(
            List.of(
                "---",
                "...",
                "&a ",
                "*a",
                "<<: ",
                "!!",
                "!!binary ",
                "? ",
                "- ",
                "|",
                ">",
                "%YAML",
                "\t",
                "  ",
                "{",
                "[",
                "'",
                "\"",
                "#"))
        .run(
            in -> {
              String text = new String(in, StandardCharsets.UTF_8);
              try {
                List<JsonNode> docs = Manifests.parse(text, "fuzz.yaml");
                assertThat(docs).doesNotContainNull();
              } catch (ManifestException e) {
                assertThat(e.getMessage()).isNotBlank();
              }
            });
  }

  @Test
  void clusterFilesReadOrFailWithAManifestError() throws Exception {
    Path file = Files.createTempFile("cluster", ".yaml");
    try {
      Fuzz.target("cluster-yaml", List.of(Files.readAllBytes(Reviews.example("cluster.yaml"))))
          .structural(new JsonMutations(YAML, YAML))
          .run(
              in -> {
                Files.write(file, in);
                try {
                  ClusterFiles.load(
                      ConfigLoader.defaults().engine().capabilities(), List.of(file), w -> {});
                } catch (ManifestException e) {
                  assertThat(e.getMessage()).isNotBlank();
                }
              });
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
