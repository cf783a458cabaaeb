package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class InformerSourceTest {

  static KubernetesClientException status(int code, String message) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @Test
  void aRefusalNamesTheStatusWhatCausesItAndTheApiServersMessage() {
    String forbidden =
        InformerSource.reason(
            new CompletionException(
                status(403, "pods is forbidden: User \"system:serviceaccount:m:mi\" cannot list")));
    assertThat(forbidden)
        .startsWith("HTTP 403 (the ServiceAccount is not allowed to list and watch it)")
        .endsWith("cannot list");
    assertThat(
            InformerSource.reason(status(404, "the server could not find the requested resource")))
        .contains("HTTP 404")
        .contains("is its CRD installed and established?");
  }

  @Test
  void aTransportFailureIsItsInnermostCauseInOneLine() {
    String down =
        InformerSource.reason(
            new KubernetesClientException(
                "Operation: [list] failed",
                new IllegalStateException(new ConnectException("Connection refused"))));
    assertThat(down).isEqualTo("ConnectException: Connection refused").doesNotContain("\n");
  }
}
