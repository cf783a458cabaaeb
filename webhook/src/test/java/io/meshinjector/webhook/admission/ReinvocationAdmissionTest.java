package io.meshinjector.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.server.RequestBody;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API server's reinvocation as the endpoint answers it: the injected pod, sent back after
 * another webhook added a container before the proxy, is answered with a patch that puts the proxy
 * first again (applied here by Parsson); the pod as patched, sent once more, with no patch.
 */
class ReinvocationAdmissionTest {
  private final AdmissionEndpoint service =
      InProcessEndpoint.overExampleCluster(ConfigLoader.defaults());

  private AdmissionReply admit(JsonNode pod) throws Exception {
    byte[] body =
        Reviews.JSON.writeValueAsBytes(Reviews.podCreate("admission.k8s.io/v1", "shop", pod));
    return service.answer("application/json", RequestBody.of(body));
  }

  private static List<String> names(JsonNode list) {
    List<String> out = new ArrayList<>();
    list.forEach(c -> out.add(c.path("name").asText()));
    return out;
  }

  @Test
  void anAddedContainerIsPutAfterTheProxyAndThenNothingChanges() throws Exception {
    // a regular proxy container: its postStart hook holds only the containers after it
    ObjectNode pod =
        (ObjectNode) Reviews.exampleJson("admission-review.json").at("/request/object");
    ObjectNode meta = (ObjectNode) pod.get("metadata");
    if (!meta.has("annotations")) {
      meta.putObject("annotations");
    }
    ((ObjectNode) meta.get("annotations")).put("mesh-injector.io/native-sidecar", "disabled");
    AdmissionReply first = admit(pod);
    assertThat(first).isInstanceOf(AdmissionReply.Patched.class);
    JsonNode injected = Parsson.apply(((AdmissionReply.Patched) first).patch(), pod);
    String proxy = injected.at("/spec/containers/0/name").asText();
    assertThat(proxy).isEqualTo("linkerd-proxy");

    ObjectNode added = injected.deepCopy();
    ((ArrayNode) added.at("/spec/containers"))
        .insert(0, Reviews.JSON.createObjectNode().put("name", "added").put("image", "x"));
    AdmissionReply second = admit(added);
    assertThat(second).isInstanceOf(AdmissionReply.Patched.class);
    JsonNode completed = Parsson.apply(((AdmissionReply.Patched) second).patch(), added);
    List<String> containers = names(completed.at("/spec/containers"));
    assertThat(containers.get(0)).isEqualTo(proxy);
    assertThat(containers).contains("added");
    assertThat(completed.at("/metadata/annotations/mesh-injector.io~1injected-containers").asText())
        .contains("added");

    assertThat(admit(completed)).isInstanceOf(AdmissionReply.Allowed.class);
    assertThat(admit(injected)).isInstanceOf(AdmissionReply.Allowed.class);
  }
}
