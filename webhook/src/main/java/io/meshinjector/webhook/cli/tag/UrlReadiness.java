package io.meshinjector.webhook.cli.tag;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A revision reached by {@code url} answers when its {@code /readyz} says 200. */
final class UrlReadiness {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private UrlReadiness() {}

  /**
   * @throws TagRefused saying what it answered, or why it could not be asked
   */
  static void require(String revision, WebhookClientConfig config) {
    String readyz = readyz(config.getUrl());
    int status;
    try {
      HttpClient http =
          HttpClient.newBuilder()
              .sslContext(trusting(config.getCaBundle()))
              .connectTimeout(TIMEOUT)
              .build();
      status =
          http.send(
                  HttpRequest.newBuilder(URI.create(readyz)).timeout(TIMEOUT).GET().build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode();
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      throw new TagRefused(
          "revision " + revision + " does not answer: GET " + readyz + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TagRefused("interrupted while asking " + readyz);
    }
    if (status != 200) {
      throw new TagRefused(
          "revision " + revision + " does not answer: GET " + readyz + " said " + status);
    }
  }

  /** The readiness URL beside the configuration's {@code .../mutate[/unrouted]}. */
  static String readyz(String url) {
    String base = url.replaceFirst("/unrouted$", "").replaceFirst("/mutate$", "");
    return base + "/readyz";
  }

  /** TLS trusting only the CAs of {@code caBundle} (base64 of PEM), as the API server does. */
  private static SSLContext trusting(String caBundle) throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    if (caBundle != null && !caBundle.isEmpty()) {
      byte[] pem = Base64.getMimeDecoder().decode(caBundle);
      int i = 0;
      for (Certificate c :
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(pem))) {
        store.setCertificateEntry("ca-" + i++, c);
      }
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }
}
