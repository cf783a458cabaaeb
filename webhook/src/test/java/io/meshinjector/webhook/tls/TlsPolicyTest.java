package io.meshinjector.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.meshinjector.webhook.support.Reviews;
import io.meshinjector.webhook.support.Served;
import io.meshinjector.webhook.support.Tls;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission port speaks TLS 1.3 and 1.2 with strong suites only, and nothing in plain text. TLS
 * 1.1 is offered with a hand-built ClientHello, because the JDK's own client refuses to send one;
 * the same builder with version 1.2 gets a ServerHello, so the refusal is the version's.
 */
class TlsPolicyTest {
  @TempDir static Path tmp;
  static Served served;

  @BeforeAll
  static void serve() throws Exception {
    served = Served.start(tmp, "{}\n");
  }

  @AfterAll
  static void stop() {
    if (served != null) {
      served.context().close();
    }
  }

  private static final int HANDSHAKE = 0x16;
  private static final int ALERT = 0x15;

  @Test
  void aTls11ClientHelloIsAnsweredWithAnAlertAndTls12WithAServerHello() throws Exception {
    byte[] tls11 = exchange(clientHello(0x0302));
    assertThat(tls11).as("answer to a TLS 1.1 ClientHello").isNotEmpty();
    assertThat(tls11[0] & 0xff).as("record type (0x15 alert, 0x16 handshake)").isEqualTo(ALERT);
    // level fatal (2); protocol_version (70) or handshake_failure (40)
    assertThat(tls11[5] & 0xff).isEqualTo(2);
    assertThat(tls11[6] & 0xff).isIn(70, 40);

    byte[] tls12 = exchange(clientHello(0x0303));
    assertThat(tls12[0] & 0xff).as("record type of the answer to TLS 1.2").isEqualTo(HANDSHAKE);
    assertThat(tls12[5] & 0xff).as("handshake type ServerHello").isEqualTo(2);
    assertThat(((tls12[9] & 0xff) << 8) | (tls12[10] & 0xff)).isEqualTo(0x0303);
  }

  @Test
  void tls12WithOnlyWeakSuitesIsRefusedAndWithAnAeadSuiteServed() throws Exception {
    String[] weak = {
      "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
      "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
      "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
      "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
      "TLS_RSA_WITH_AES_128_GCM_SHA256",
      "TLS_RSA_WITH_AES_128_CBC_SHA"
    };
    assertThatThrownBy(() -> handshake("TLSv1.2", weak)).isInstanceOf(SSLHandshakeException.class);
    String[] strong = {
      "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
    };
    assertThat(handshake("TLSv1.2", strong)).isIn((Object[]) strong);
    assertThat(handshake("TLSv1.3", new String[] {"TLS_AES_256_GCM_SHA384"}))
        .isEqualTo("TLS_AES_256_GCM_SHA384");
  }

  @Test
  void plainHttpOnTheAdmissionPortGetsNoAdmission() throws Exception {
    byte[] review = Reviews.JSON.writeValueAsBytes(Reviews.exampleJson("admission-review.json"));
    String head =
        "POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + "Content-Length: "
            + review.length
            + "\r\nConnection: close\r\n\r\n";
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.write(head.getBytes(StandardCharsets.US_ASCII));
    request.write(review);
    String answer = new String(exchange(request.toByteArray()), StandardCharsets.ISO_8859_1);
    // the server tells a plain-text client that the port needs TLS, or a TLS alert, or nothing
    assertThat(answer).doesNotStartWith("HTTP/1.1 200").doesNotContain("AdmissionReview");
    if (answer.startsWith("HTTP/")) {
      assertThat(answer).startsWith("HTTP/1.1 400");
    }
  }

  @Test
  void thePlainManagementPortDoesNotServeMutate() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://localhost:" + served.management() + "/mutate"))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            Reviews.exampleJson("admission-review.json").toString()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).doesNotContain("AdmissionReview");
  }

  /** The suite negotiated, after a full handshake with the test CA trusted. */
  private static String handshake(String protocol, String[] suites) throws Exception {
    SSLContext ssl = Tls.sslContext(served.ca());
    try (SSLSocket socket =
        (SSLSocket) ssl.getSocketFactory().createSocket("localhost", served.https())) {
      socket.setSoTimeout(5000);
      socket.setEnabledProtocols(new String[] {protocol});
      socket.setEnabledCipherSuites(suites);
      socket.startHandshake();
      return socket.getSession().getCipherSuite();
    }
  }

  /** Sends {@code bytes} and returns what the server answers until it closes or goes quiet. */
  private static byte[] exchange(byte[] bytes) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("localhost", served.https()), 5000);
      socket.setSoTimeout(3000);
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[4096];
      try {
        int n;
        while ((n = in.read(buffer)) > 0) {
          answer.write(buffer, 0, n);
          if (answer.size() >= 11) {
            break;
          }
        }
      } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
        // quiet or reset: what came before is the answer
      }
      return answer.toByteArray();
    }
  }

  /**
   * A ClientHello record for {@code version} (0x0302 TLS 1.1, 0x0303 TLS 1.2) offering ECDHE suites
   * that either protocol can use, P-256, and (for 1.2) ECDSA and RSA signatures.
   */
  static byte[] clientHello(int version) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(version >> 8);
    body.write(version);
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    body.writeBytes(random);
    body.write(0); // no session id
    int[] suites =
        version >= 0x0303
            ? new int[] {0xc02b, 0xc02f, 0xc009, 0xc013}
            : new int[] {0xc009, 0xc00a, 0xc013, 0xc014, 0x002f, 0x0035};
    u16(body, suites.length * 2);
    for (int s : suites) {
      u16(body, s);
    }
    body.write(1); // one compression method: null
    body.write(0);
    ByteArrayOutputStream ext = new ByteArrayOutputStream();
    u16(ext, 0x000a); // supported_groups: secp256r1
    u16(ext, 4);
    u16(ext, 2);
    u16(ext, 0x0017);
    u16(ext, 0x000b); // ec_point_formats: uncompressed
    u16(ext, 2);
    ext.write(1);
    ext.write(0);
    if (version >= 0x0303) {
      u16(ext, 0x000d); // signature_algorithms
      u16(ext, 8);
      u16(ext, 6);
      u16(ext, 0x0403); // ecdsa_secp256r1_sha256
      u16(ext, 0x0804); // rsa_pss_rsae_sha256
      u16(ext, 0x0401); // rsa_pkcs1_sha256
    }
    u16(body, ext.size());
    body.writeBytes(ext.toByteArray());
    ByteArrayOutputStream record = new ByteArrayOutputStream();
    record.write(HANDSHAKE);
    u16(record, 0x0301);
    u16(record, body.size() + 4);
    record.write(1); // ClientHello
    record.write(0);
    u16(record, body.size());
    record.writeBytes(body.toByteArray());
    return record.toByteArray();
  }

  private static void u16(ByteArrayOutputStream out, int value) {
    out.write((value >> 8) & 0xff);
    out.write(value & 0xff);
  }
}
