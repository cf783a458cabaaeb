package io.meshinjector.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.certs.CertDirectory;
import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.server.ServerPorts;
import io.meshinjector.webhook.support.NoDrain;
import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.ServedContexts;
import io.meshinjector.webhook.support.Tls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/** {@code serve --tls-dir} with an empty folder, and the expiry gauge of what it then serves. */
class ServeGeneratesCertificatesTest {
  @TempDir Path tmp;

  @Test
  void anEmptyTlsDirGetsASelfSignedSetThatIsServedAndMeasured() throws Exception {
    Path dir = tmp.resolve("empty");
    var cli = MeshInjector.commandLine();
    assertThat(
            cli.execute(
                "serve",
                "--port=0",
                "--metrics-port=0",
                "--tls-dir=" + dir,
                "--config=" + NoDrain.config(dir.resolveSibling("config.yaml"), ""),
                "--cluster=" + Reviews.example("cluster.yaml")))
        .isZero();
    ConfigurableApplicationContext context = ServedContexts.last();
    try {
      ServerPorts ports = context.getBean(ServerPorts.class);
      X509Certificate written = new CertDirectory(dir).read().certificate();

      HttpResponse<String> health =
          Tls.client(dir.resolve("ca.crt"))
              .send(
                  HttpRequest.newBuilder(
                          URI.create("https://localhost:" + ports.https() + "/healthz"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.sslSession().orElseThrow().getPeerCertificates()[0]).isEqualTo(written);

      String metrics =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://localhost:" + ports.management() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      long notAfter = written.getNotAfter().toInstant().getEpochSecond();
      assertThat(metrics)
          .contains("mesh_injector_serving_cert_expiry_seconds{mode=\"self-managed\"}");
      assertThat(parseGauge(metrics)).isEqualTo(notAfter);
    } finally {
      context.close();
    }
  }

  private static long parseGauge(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith("mesh_injector_serving_cert_expiry_seconds{"))
        .map(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElseThrow();
  }
}
