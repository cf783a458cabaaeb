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

/** The requests a real API server gets: two server-side applies with a forced field manager. */
@EnableKubernetesMockClient
class NodeCapabilityApplyTest {
  static final String PATH = "/apis/mesh-injector.io/v1alpha1/nodecapabilities/rhel-1";
  static final String QUERY = "?fieldManager=mesh-injector-probe&force=true";

  KubernetesMockServer server;
  KubernetesClient client;

  @Test
  void appliesTheObjectThenItsStatus() throws Exception {
    String body =
        "{\"apiVersion\":\"mesh-injector.io/v1alpha1\",\"kind\":\"NodeCapability\","
            + "\"metadata\":{\"name\":\"rhel-1\"}}";
    server.expect().patch().withPath(PATH + QUERY).andReturn(200, body).once();
    server.expect().patch().withPath(PATH + "/status" + QUERY).andReturn(200, body).once();

    NodeCapabilityWriter.Method how =
        new NodeCapabilityWriter(
                client, NodeCapabilityWriter.fieldManager(NodeCapabilityWriter.DEFAULT_REVISION))
            .write(
                "rhel-1",
                NodeCapabilityWriterTest.report(
                    Instant.parse("2026-11-20T10:00:00Z"),
                    Map.of("hostIptables", "nft"),
                    Verdict.ABSENT));

    assertThat(how).isEqualTo(NodeCapabilityWriter.Method.SERVER_SIDE_APPLY);
    RecordedRequest object = server.takeRequest(5, TimeUnit.SECONDS);
    RecordedRequest status = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(object.getPath()).isEqualTo(PATH + QUERY);
    assertThat(object.getHeader("Content-Type")).startsWith("application/apply-patch+yaml");
    assertThat(object.getBody().readUtf8())
        .contains("\"name\":\"rhel-1\"")
        .doesNotContain("status");
    assertThat(status.getPath()).isEqualTo(PATH + "/status" + QUERY);
    assertThat(status.getHeader("Content-Type")).startsWith("application/apply-patch+yaml");
    assertThat(status.getBody().readUtf8())
        .contains("\"observedAt\":\"2026-11-20T10:00:00Z\"")
        .contains("\"cni\":\"absent\"")
        .contains("\"hostIptables\":\"nft\"");
  }
}
