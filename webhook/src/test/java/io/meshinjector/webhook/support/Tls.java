package io.meshinjector.webhook.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/** HTTP clients that trust only the test CA, as the API server trusts only the caBundle. */
public final class Tls {
  private Tls() {}

  public static HttpClient client(Path caCrt, String... protocols) throws Exception {
    return client(caCrt, HttpClient.Version.HTTP_2, protocols);
  }

  /** {@code HTTP_1_1}: one request at a time per kept-alive connection, as many Go clients use. */
  public static HttpClient client(Path caCrt, HttpClient.Version version, String... protocols)
      throws Exception {
    SSLContext ssl = sslContext(caCrt);
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .version(version)
            .sslContext(ssl)
            .connectTimeout(Duration.ofSeconds(5));
    if (protocols.length > 0) {
      SSLParameters params = new SSLParameters();
      params.setProtocols(protocols);
      b.sslParameters(params);
    }
    return b.build();
  }

  /** A TLS context that trusts only the CA in {@code caCrt} (PEM). */
  public static SSLContext sslContext(Path caCrt) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(caCrt)) {
      trust.setCertificateEntry(
          "ca", (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }

  /**
   * Sends the way the API server's Go client does when the server ends an HTTP/2 connection with
   * GOAWAY: a request caught by it goes once more, on a new connection. JDK 17's HttpClient fails
   * every open stream on a GOAWAY instead (JDK-8335181), even one the server never took; an
   * AdmissionReview may be sent twice, since the webhook must answer a repeat the same way.
   *
   * @param onResend told before the request goes again
   */
  public static <T> HttpResponse<T> send(
      HttpClient client,
      HttpRequest request,
      HttpResponse.BodyHandler<T> handler,
      Runnable onResend)
      throws IOException, InterruptedException {
    try {
      return client.send(request, handler);
    } catch (IOException e) {
      if (!isGoAway(e)) {
        throw e;
      }
      onResend.run();
      return client.send(request, handler);
    }
  }

  public static boolean isGoAway(IOException e) {
    return String.valueOf(e.getMessage()).endsWith("GOAWAY received");
  }
}
