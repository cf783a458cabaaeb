package io.meshinjector.webhook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.admission.AdmissionReply;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.settings.PodLimits;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every input limit, at the limit (served) and one past it (refused naming the limit): body size,
 * JSON nesting depth, string length, and the per-pod counts of containers, volumes and env entries.
 */
class InputLimitsTest {
  private static final MeshConfig CONFIG = ConfigLoader.defaults();
  private static final InMemoryClusterView VIEW =
      ClusterFiles.load(CONFIG.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));

  private static AdmissionEndpoint service(
      int maxBytes, int maxDepth, int maxString, PodLimits limits) {
    String config =
        "webhook:\n"
            + ("  maxRequestBytes: " + maxBytes + "\n")
            + ("  maxNestingDepth: " + maxDepth + "\n")
            + ("  maxStringLength: " + maxString + "\n")
            + "  podLimits:\n"
            + ("    maxContainers: " + limits.maxContainers() + "\n")
            + ("    maxVolumes: " + limits.maxVolumes() + "\n")
            + ("    maxEnvEntries: " + limits.maxEnvEntries() + "\n");
    return InProcessEndpoint.of(
        ConfigLoader.fromYaml("config.yaml", config), () -> VIEW, new SimpleMeterRegistry());
  }

  private static AdmissionEndpoint service(PodLimits limits) {
    return service(1 << 20, 100, 1 << 20, limits);
  }

  private static AdmissionReply send(AdmissionEndpoint service, byte[] body) {
    return service.answer("application/json", RequestBody.of(body));
  }

  private static AdmissionReply send(AdmissionEndpoint service, ObjectNode review)
      throws Exception {
    return send(service, Reviews.JSON.writeValueAsBytes(review));
  }

  private static ObjectNode review() {
    return Reviews.podCreate("admission.k8s.io/v1", "shop", Reviews.examplePod());
  }

  private static void served(AdmissionReply reply) {
    assertThat(reply).isNotInstanceOf(AdmissionReply.Failed.class);
    assertThat(reply.httpStatus()).isEqualTo(200);
  }

  private static AdmissionReply.Failed failed(AdmissionReply reply, int status) {
    assertThat(reply).isInstanceOf(AdmissionReply.Failed.class);
    AdmissionReply.Failed f = (AdmissionReply.Failed) reply;
    assertThat(f.httpStatus()).isEqualTo(status);
    return f;
  }

  @Test
  void bodyOfExactlyTheLimitIsServedAndOneByteMoreIs413() throws Exception {
    byte[] body = Reviews.JSON.writeValueAsBytes(review());
    served(send(service(body.length, 100, 1 << 20, PodLimits.from(CONFIG)), body));
    var f = failed(send(service(body.length - 1, 100, 1 << 20, PodLimits.from(CONFIG)), body), 413);
    assertThat(f.message()).contains(String.valueOf(body.length - 1));
  }

  /** request.deep holds {@code arrays} nested arrays: the root and request are two levels more. */
  private static byte[] nested(int arrays) throws Exception {
    String json = Reviews.JSON.writeValueAsString(review());
    String deep = "[".repeat(arrays) + "]".repeat(arrays);
    return json.replaceFirst("\"request\":\\{", "\"request\":{\"deep\":" + deep + ",")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void nestingOfExactlyTheLimitIsServedAndOneLevelMoreIs400() throws Exception {
    AdmissionEndpoint service = service(1 << 20, 40, 1 << 20, PodLimits.from(CONFIG));
    served(send(service, nested(38)));
    var f = failed(send(service, nested(39)), 400);
    assertThat(f.message()).startsWith("the JSON at /request/deep").contains("deeper than 40");
  }

  @Test
  void aStringOfExactlyTheLimitIsServedAndOneCharacterMoreIs400() throws Exception {
    AdmissionEndpoint service = service(1 << 20, 100, 5000, PodLimits.from(CONFIG));
    ObjectNode atLimit = review();
    ((ObjectNode) atLimit.path("request")).put("long", "y".repeat(5000));
    served(send(service, atLimit));
    ObjectNode past = review();
    ((ObjectNode) past.path("request")).put("long", "y".repeat(5001));
    assertThat(failed(send(service, past), 400).message())
        .isEqualTo("a string at /request/long is longer than 5000 characters");
  }

  /** The example pod with containers, init containers, volumes and env as many as asked. */
  private static ObjectNode pod(int containers, int initContainers, int volumes, int envEach) {
    ObjectNode review = review();
    ObjectNode spec = (ObjectNode) review.path("request").path("object").path("spec");
    ObjectNode template = (ObjectNode) spec.path("containers").get(0).deepCopy();
    ArrayNode list = spec.putArray("containers");
    ArrayNode inits = spec.putArray("initContainers");
    for (int i = 0; i < containers + initContainers; i++) {
      ObjectNode c = template.deepCopy();
      c.put("name", "c" + i);
      c.remove("ports");
      ArrayNode env = c.putArray("env");
      for (int e = 0; e < envEach; e++) {
        env.addObject().put("name", "E" + e).put("value", "v");
      }
      (i < containers ? list : inits).add(c);
    }
    ArrayNode vols = spec.putArray("volumes");
    for (int v = 0; v < volumes; v++) {
      vols.addObject().put("name", "v" + v).putObject("emptyDir");
    }
    return review;
  }

  @Test
  void containersIncludingInitContainersAtTheLimitAreServedAndOneMoreIs400() throws Exception {
    AdmissionEndpoint service = service(new PodLimits(6, 100, 1000));
    served(send(service, pod(4, 2, 1, 1)));
    assertThat(failed(send(service, pod(4, 3, 1, 1)), 400).message())
        .isEqualTo(
            "request.object is over a limit: spec.containers + spec.initContainers has 7"
                + " containers, more than the limit webhook.podLimits.maxContainers = 6");
  }

  @Test
  void volumesAtTheLimitAreServedAndOneMoreIs400() throws Exception {
    AdmissionEndpoint service = service(new PodLimits(100, 20, 1000));
    served(send(service, pod(1, 0, 20, 1)));
    assertThat(failed(send(service, pod(1, 0, 21, 1)), 400).message())
        .isEqualTo(
            "request.object is over a limit: spec.volumes has 21 volumes, more than the limit"
                + " webhook.podLimits.maxVolumes = 20");
  }

  @Test
  void envEntriesOverAllContainersAtTheLimitAreServedAndOneMoreIs400() throws Exception {
    AdmissionEndpoint service = service(new PodLimits(100, 100, 30));
    // 3 containers x 10 = 30
    served(send(service, pod(2, 1, 1, 10)));
    ObjectNode past = pod(2, 1, 1, 10);
    ((ArrayNode)
            past.path("request")
                .path("object")
                .path("spec")
                .path("initContainers")
                .get(0)
                .path("env"))
        .addObject()
        .put("name", "ONE_MORE");
    assertThat(failed(send(service, past), 400).message())
        .isEqualTo(
            "request.object is over a limit: spec.containers[*].env + spec.initContainers[*].env"
                + " has 31 env entries, more than the limit webhook.podLimits.maxEnvEntries = 30");
  }

  @Test
  void theShippedDefaultsTakeARealPodAndAreConfigurable() throws Exception {
    PodLimits defaults = PodLimits.from(CONFIG);
    assertThat(defaults).isEqualTo(new PodLimits(100, 500, 10000));
    served(send(service(defaults), review()));
    MeshConfig custom =
        ConfigLoader.fromYaml(
            "webhook:\n  podLimits:\n    maxContainers: 3\n    maxVolumes: 4\n    maxEnvEntries: 5\n");
    assertThat(PodLimits.from(custom)).isEqualTo(new PodLimits(3, 4, 5));
    assertThatThrownBy(
            () ->
                PodLimits.from(
                    ConfigLoader.fromYaml("webhook:\n  podLimits:\n    maxVolumes: 0\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("config key 'webhook.podLimits.maxVolumes' must be at least 1, not 0");
    assertThatThrownBy(
            () -> PodLimits.from(ConfigLoader.fromYaml("webhook:\n  podLimits:\n    maxPods: 1\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("webhook.podLimits.maxPods");
  }
}
