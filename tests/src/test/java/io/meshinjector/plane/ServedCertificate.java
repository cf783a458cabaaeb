package io.meshinjector.plane;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLSocket;

/**
 * The certificate a TLS server presents, read with a handshake that trusts anything: what is served
 * is the question here, and the test checks it against the CA itself.
 */
public final class ServedCertificate {
  private ServedCertificate() {}

  /** The leaf certificate {@code host:port} serves for {@code serverName}. */
  public static X509Certificate of(String host, int port) throws IOException {
    try (SSLSocket socket = (SSLSocket) Tls.trustAll().getSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress(host, port), 5000);
      socket.setSoTimeout(5000);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }
}
