package io.meshinjector.webhook.support;

import java.io.InputStream;
import java.net.http.HttpClient;
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
    HttpClient.Builder b =
        HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5));
    if (protocols.length > 0) {
      SSLParameters params = new SSLParameters();
      params.setProtocols(protocols);
      b.sslParameters(params);
    }
    return b.build();
  }
}
