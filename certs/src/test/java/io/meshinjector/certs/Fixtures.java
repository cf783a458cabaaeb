package io.meshinjector.certs;

import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Builds JDK TLS contexts from a {@link CertificateSet}, as a server and a client would. */
final class Fixtures {
  private Fixtures() {}

  static SSLContext serverContext(CertificateSet set) throws Exception {
    KeyStore keyStore = KeyStore.getInstance("PKCS12");
    keyStore.load(null, null);
    char[] password = "changeit".toCharArray();
    keyStore.setKeyEntry(
        "tls", set.privateKey(), password, new X509Certificate[] {set.certificate()});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keyStore, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    return context;
  }

  static SSLContext clientContext(java.util.List<X509Certificate> trusted) throws Exception {
    KeyStore trustStore = KeyStore.getInstance("PKCS12");
    trustStore.load(null, null);
    int i = 0;
    for (X509Certificate ca : trusted) {
      trustStore.setCertificateEntry("ca" + i++, ca);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trustStore);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }
}
