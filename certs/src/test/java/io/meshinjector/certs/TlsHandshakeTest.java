package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A real handshake on loopback with a set that went through the files: proves the key survives PEM
 * with its curve and that the SANs satisfy the JDK's HTTPS hostname check.
 */
class TlsHandshakeTest {
  @TempDir Path dir;

  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @ParameterizedTest
  @CsvSource({
    "EC_P256, TLSv1.3, localhost",
    "EC_P256, TLSv1.2, localhost",
    "EC_P256, TLSv1.3, 127.0.0.1",
    "RSA_2048, TLSv1.3, localhost",
    "RSA_2048, TLSv1.2, 127.0.0.1",
  })
  void clientVerifiesTheServerWithTheCaAndHostname(KeyType keyType, String protocol, String host)
      throws Exception {
    WriteResult result =
        CertDirectory.writeSet(dir, List.of("localhost"), 1, false, keyType, Clock.systemUTC());
    assertThat(result).isInstanceOf(WriteResult.Written.class);
    CertificateSet fromFiles = new CertDirectory(dir).read();

    String reply = roundTrip(fromFiles, protocol, host);

    assertThat(reply).isEqualTo("echo hello");
  }

  @Test
  void aHostNotInTheSansFailsTheHandshake() throws Exception {
    CertDirectory.writeSet(
        dir, List.of("web.shop.svc"), 1, false, KeyType.defaultType(), Clock.systemUTC());
    CertificateSet set = new CertDirectory(dir).read();

    assertThatThrownBy(() -> roundTrip(set, "TLSv1.3", "localhost"))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void aClientTrustingAnotherCaFailsTheHandshake() throws Exception {
    CertDirectory.writeSet(
        dir, List.of("localhost"), 1, false, KeyType.defaultType(), Clock.systemUTC());
    CertificateSet set = new CertDirectory(dir).read();
    var other =
        new CertificateIssuer(Clock.systemUTC())
            .newAuthority(java.time.Duration.ofDays(1), KeyType.EC_P256);

    assertThatThrownBy(
            () ->
                roundTrip(
                    set.withCaCertificates(List.of(other.certificate())), "TLSv1.3", "localhost"))
        .isInstanceOf(SSLHandshakeException.class);
  }

  private String roundTrip(CertificateSet set, String protocol, String host) throws Exception {
    SSLContext server = Fixtures.serverContext(set);
    List<X509Certificate> trusted = set.caCertificates();
    try (SSLServerSocket listener =
        (SSLServerSocket)
            server
                .getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listener.setEnabledProtocols(new String[] {protocol});
      Future<?> serving =
          executor.submit(
              () -> {
                try (Socket socket = listener.accept();
                    var in =
                        new BufferedReader(
                            new InputStreamReader(
                                socket.getInputStream(), StandardCharsets.UTF_8));
                    var out = new PrintWriter(socket.getOutputStream(), true)) {
                  out.println("echo " + in.readLine());
                }
                return null;
              });
      SSLContext client = Fixtures.clientContext(trusted);
      try (Socket plain = new Socket()) {
        // connect by address, present the name: "localhost" may resolve to ::1 first
        plain.connect(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 5000);
        plain.setSoTimeout(5000);
        try (SSLSocket socket =
            (SSLSocket)
                client
                    .getSocketFactory()
                    .createSocket(plain, host, listener.getLocalPort(), false)) {
          SSLParameters params = socket.getSSLParameters();
          params.setEndpointIdentificationAlgorithm("HTTPS");
          params.setProtocols(new String[] {protocol});
          socket.setSSLParameters(params);
          socket.startHandshake();
          assertThat(socket.getSession().getProtocol()).isEqualTo(protocol);
          assertThat(socket.getSession().getPeerCertificates()[0]).isEqualTo(set.certificate());
          var out = new PrintWriter(socket.getOutputStream(), true);
          out.println("hello");
          var in =
              new BufferedReader(
                  new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
          String reply = in.readLine();
          serving.get(5, TimeUnit.SECONDS);
          return reply;
        }
      } finally {
        serving.cancel(true);
      }
    }
  }
}
