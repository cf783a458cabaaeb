package io.meshinjector.webhook.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.lists.StreamedList;
import io.meshinjector.webhook.tls.TlsProvider;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContext;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cluster clients' TLS on BoringSSL, against fabric8's mock server over HTTPS. */
@EnableKubernetesMockClient(https = true, crud = true)
class NativeTlsHttpClientFactoryTest {
  KubernetesClient client;

  Config config(boolean trustCerts) {
    return new ConfigBuilder(client.getConfiguration())
        .withTrustCerts(trustCerts)
        .withRequestRetryBackoffLimit(0)
        .build();
  }

  @Test
  void theClientsContextIsBoringSslWhereItLoads() throws Exception {
    assumeTrue(TlsProvider.boringSsl(), "netty-tcnative does not load on this machine");
    NativeTlsHttpClientFactory factory = new NativeTlsHttpClientFactory();
    factory.newBuilder(config(false));
    WebClientOptions options = new WebClientOptions();

    factory.additionalConfig(options);
    SslContext context = options.getSslEngineOptions().sslContextFactory().create();

    assertThat(context).isInstanceOf(ReferenceCountedOpenSslContext.class);
    assertThat(context.isClient()).isTrue();
  }

  @Test
  void listsOverItWhenTheServerIsTrusted() {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    List<String> names = new ArrayList<>();

    try (KubernetesClient ours = ClusterClients.builder().withConfig(config(true)).build()) {
      StreamedList.forEach(
          ours, "api/v1/nodes", Map.of(), Node.class, n -> names.add(n.getMetadata().getName()));
    }

    assertThat(names).containsExactly("n1");
  }

  @Test
  void refusesAServerWhoseCertificateNoTrustedAuthoritySigned() {
    // the mock's certificate is self-signed, and this Config names no CA: the JDK's defaults
    try (KubernetesClient ours = ClusterClients.builder().withConfig(config(false)).build()) {
      assertThatThrownBy(
              () -> StreamedList.forEach(ours, "api/v1/nodes", Map.of(), Node.class, n -> {}))
          .isInstanceOf(KubernetesClientException.class)
          .satisfies(
              e ->
                  assertThat(ClusterSnapshot.cause(e))
                      .containsAnyOf("certification path", "certificate", "PKIX"));
    }
  }
}
