package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.webhook.support.Cli;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertsCommandTest {
  @TempDir Path dir;

  @Test
  void writesTheThreeFilesAndKeepsAValidSetUnlessForced() throws Exception {
    Path out = dir.resolve("tls");
    Cli.Run run =
        Cli.run(
            "certs",
            "--out",
            out.toString(),
            "--dns",
            "mesh-injector.mesh-injector.svc",
            "--dns",
            "localhost",
            "--days",
            "30");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("wrote ca.crt, tls.crt and tls.key");
    assertThat(Files.readString(out.resolve("tls.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
    X509Certificate cert;
    try (InputStream in = Files.newInputStream(out.resolve("tls.crt"))) {
      cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    assertThat(cert.getSubjectAlternativeNames().stream().map(n -> n.get(1).toString()))
        .contains("mesh-injector.mesh-injector.svc", "localhost");
    String key = Files.readString(out.resolve("tls.key"));

    Cli.Run again = Cli.run("certs", "--out", out.toString(), "--dns", "localhost");
    assertThat(again.code()).isEqualTo(ExitCodes.INPUT);
    assertThat(again.err()).contains("--force");
    assertThat(Files.readString(out.resolve("tls.key"))).isEqualTo(key);

    Cli.Run forced = Cli.run("certs", "--out", out.toString(), "--dns", "localhost", "--force");
    assertThat(forced.code()).isZero();
    assertThat(Files.readString(out.resolve("tls.key"))).isNotEqualTo(key);
  }

  @Test
  void needsADnsName() {
    Cli.Run run = Cli.run("certs", "--out", dir.toString());
    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--dns");
  }
}
