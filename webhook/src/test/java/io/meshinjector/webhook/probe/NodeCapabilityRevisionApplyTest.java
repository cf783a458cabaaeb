package io.meshinjector.webhook.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.meshinjector.engine.capability.Verdict;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The requests a real API server gets from a probe of a revision other than {@code default}: its
 * applies go under its own field manager, so they remove only what that revision applied before,
 * never the status fields another revision's probe owns.
 */
@EnableKubernetesMockClient
class NodeCapabilityRevisionApplyTest {
  static final String PATH = NodeCapabilityApplyTest.PATH;
  static final String QUERY = "?fieldManager=mesh-injector-probe-canary&force=true";

  KubernetesMockServer server;
  KubernetesClient client;

  @Test
  void eachRevisionAppliesUnderItsOwnFieldManager() {
    assertThat(NodeCapabilityWriter.fieldManager("default"))
        .isEqualTo(NodeCapabilityWriter.FIELD_MANAGER)
        .isEqualTo("mesh-injector-probe");
    assertThat(NodeCapabilityWriter.fieldManager("canary")).isEqualTo("mesh-injector-probe-canary");
  }

  @Test
  void anotherRevisionAppliesUnderItsOwnManager() throws Exception {
    String body =
        "{\"apiVersion\":\"mesh-injector.io/v1alpha1\",\"kind\":\"NodeCapability\","
            + "\"metadata\":{\"name\":\"rhel-1\"}}";
    server.expect().patch().withPath(PATH + QUERY).andReturn(200, body).once();
    server.expect().patch().withPath(PATH + "/status" + QUERY).andReturn(200, body).once();

    NodeCapabilityWriter.Method how =
        new NodeCapabilityWriter(client, NodeCapabilityWriter.fieldManager("canary"))
            .write(
                "rhel-1",
                NodeCapabilityWriterTest.report(
                    Instant.parse("2026-11-20T10:05:00Z"),
                    Map.of("os", "rhel 8.10"),
                    Verdict.ABSENT));

    assertThat(how).isEqualTo(NodeCapabilityWriter.Method.SERVER_SIDE_APPLY);
    RecordedRequest object = server.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest status = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(object.getPath()).isEqualTo(PATH + QUERY);
    assertThat(status.getPath()).isEqualTo(PATH + "/status" + QUERY);
  }
}
