package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.Served;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pods that run to completion through {@code serve} over TLS, as the API server sends them when the
 * Job controller creates them: on mixed kubelets, constrained to the nodes that run native sidecars
 * with the proxy as one; on old kubelets only, refused by the default {@code
 * policy.runToCompletion: reject}, with the reason and the fix. Patches are applied with Parsson.
 */
class RunToCompletionServeTest {
  private static final String NATIVE_LABEL = "capability.mesh-injector.io/native-sidecar";

  @TempDir static Path tmp;
  static Served served;
  static HttpClient client;

  @BeforeAll
  static void serve() throws Exception {
    served = Served.start(tmp, "{}\n", Reviews.testCluster("run-to-completion.yaml"));
    client = Tls.client(served.ca());
  }

  @AfterAll
  static void stop() {
    if (served != null) {
      served.context().close();
    }
  }

  /** A pod as the Job controller creates it: owned by its Job, restartPolicy as the template. */
  static ObjectNode jobPod(String namespace, String job, String restartPolicy, String pool) {
    ObjectNode pod = Reviews.JSON.createObjectNode();
    pod.put("apiVersion", "v1");
    pod.put("kind", "Pod");
    ObjectNode meta = pod.putObject("metadata");
    meta.put("generateName", job + "-");
    meta.put("namespace", namespace);
    meta.putObject("labels").put("job-name", job);
    ObjectNode owner = meta.putArray("ownerReferences").addObject();
    owner.put("apiVersion", "batch/v1");
    owner.put("kind", "Job");
    owner.put("name", job);
    owner.put("uid", "0b7c0a52-5a9e-4c43-9d4e-2f0c8a7f6b11");
    owner.put("controller", true);
    ObjectNode spec = pod.putObject("spec");
    spec.put("restartPolicy", restartPolicy);
    spec.putObject("nodeSelector").put("pool", pool);
    ObjectNode c = spec.putArray("containers").addObject();
    c.put("name", "migrate");
    c.put("image", "busybox:1.36");
    return pod;
  }

  static JsonNode admit(ObjectNode review) throws Exception {
    return Reviews.post(client, served.uri("/mutate"), review);
  }

  @Test
  void aJobOnMixedKubeletsIsConstrainedToNativeSidecarNodesWithANativeSidecarProxy()
      throws Exception {
    ObjectNode pod = jobPod("batch", "migrate", "Never", "batch");
    JsonNode response = admit(Reviews.podCreate("admission.k8s.io/v1", "batch", pod));

    assertThat(response.path("allowed").asBoolean()).as(response.toString()).isTrue();
    assertThat(response.path("auditAnnotations").path("decision").asText())
        .isEqualTo("init/nft native-sidecar await constrained");
    assertThat(response.path("warnings").toString())
        .contains("as it runs to completion")
        .contains("batch-old");
    JsonNode patch =
        Reviews.JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    JsonNode out = Parsson.apply(patch, pod);

    // the proxy is an init container with restartPolicy Always: it ends when the app ends
    List<String> inits = new ArrayList<>();
    out.path("spec").path("initContainers").forEach(i -> inits.add(i.path("name").asText()));
    assertThat(inits).containsExactly("linkerd-init", "linkerd-proxy");
    assertThat(out.path("spec").path("initContainers").get(1).path("restartPolicy").asText())
        .isEqualTo("Always");
    assertThat(out.path("spec").path("containers")).hasSize(1);
    assertThat(out.path("spec").path("restartPolicy").asText()).isEqualTo("Never");
    // and the scheduler may only place it where the kubelet runs native sidecars
    JsonNode terms =
        out.path("spec")
            .path("affinity")
            .path("nodeAffinity")
            .path("requiredDuringSchedulingIgnoredDuringExecution")
            .path("nodeSelectorTerms");
    assertThat(terms).hasSize(1);
    assertThat(terms.get(0).path("matchExpressions"))
        .containsExactly(
            Reviews.JSON.readTree(
                "{\"key\":\""
                    + NATIVE_LABEL
                    + "\",\"operator\":\"In\",\"values\":[\"supported\"]}"));
    assertThat(out.path("spec").path("nodeSelector").path("pool").asText()).isEqualTo("batch");

    assertThat(metrics()).contains("mesh_injector_run_to_completion_total{rule=\"constrained\"}");
  }

  @Test
  void aJobOnOldKubeletsOnlyIsRefusedWithTheReasonAndTheFix() throws Exception {
    ObjectNode pod = jobPod("shop", "report-29000000", "OnFailure", "centos");
    JsonNode response = admit(Reviews.podCreate("admission.k8s.io/v1", "shop", pod));

    assertThat(response.path("allowed").asBoolean()).as(response.toString()).isFalse();
    assertThat(response.has("patch")).isFalse();
    assertThat(response.path("status").path("code").asInt()).isEqualTo(403);
    assertThat(response.path("status").path("message").asText())
        .contains("runs to completion (restartPolicy: OnFailure)")
        .contains("no candidate node runs native sidecars (kubelet >= 1.29)")
        .contains("centos-1", "native-sidecar unsupported (inference: kubelet v1.27.16)")
        .contains("Fix:", "policy.runToCompletion: inject");

    assertThat(metrics())
        .contains("mesh_injector_refusals_total{reason=\"run-to-completion\"}")
        .contains("mesh_injector_run_to_completion_total{rule=\"refused\"}");
  }

  @Test
  void aLongRunningPodOnTheSameNodesIsDecidedAsBefore() throws Exception {
    ObjectNode pod = jobPod("batch", "web", "Always", "batch");
    JsonNode response = admit(Reviews.podCreate("admission.k8s.io/v1", "batch", pod));

    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.path("auditAnnotations").path("decision").asText())
        .isEqualTo("init/nft container await");
  }

  static String metrics() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://localhost:" + served.management() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }
}
