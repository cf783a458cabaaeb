package io.meshinjector.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.certs.CertDirectory;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.SubjectNames;
import io.meshinjector.webhook.MeshInjector;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code certs} and {@code serve --tls-dir}'s generation, through the certs module. */
class CertsCommandTest {
  @TempDir Path tmp;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int certs(String... args) {
    CommandLine cli = MeshInjector.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "certs";
    System.arraycopy(args, 0, all, 1, args.length);
    return cli.execute(all);
  }

  @Test
  void writesAValidSetAndRefusesToOverwriteItUnlessForced() throws Exception {
    Path dir = tmp.resolve("out");
    assertThat(certs("--out", dir.toString(), "--dns", "webhook.example", "--days", "30")).isZero();
    assertThat(out.toString())
        .contains("wrote ca.crt, tls.crt and tls.key")
        .contains("webhook.example");
    var set = new CertDirectory(dir).read();
    assertThat(
            new CertificateValidator(Clock.systemUTC())
                .validate(set, SubjectNames.of(List.of("webhook.example")))
                .isValid())
        .isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("tls.key"))))
        .isEqualTo("rw-------");
    String firstCrt = Files.readString(dir.resolve("tls.crt"));

    assertThat(certs("--out", dir.toString(), "--dns", "webhook.example")).isNotZero();
    assertThat(err.toString()).contains("refusing to overwrite").contains("--force");
    assertThat(Files.readString(dir.resolve("tls.crt"))).isEqualTo(firstCrt);

    assertThat(certs("--out", dir.toString(), "--dns", "webhook.example", "--force")).isZero();
    assertThat(Files.readString(dir.resolve("tls.crt"))).isNotEqualTo(firstCrt);
  }

  @Test
  void aSetForOtherNamesIsReplacedWithoutForce() throws Exception {
    Path dir = tmp.resolve("out");
    assertThat(certs("--out", dir.toString(), "--dns", "a.example")).isZero();
    String firstCrt = Files.readString(dir.resolve("tls.crt"));

    int status = certs("--out", dir.toString(), "--dns", "b.example");

    assertThat(status).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains("replaced the set there (tls.crt does not cover b.example), with a new CA");
    assertThat(Files.readString(dir.resolve("tls.crt"))).isNotEqualTo(firstCrt);
    assertThat(
            new CertificateValidator(Clock.systemUTC())
                .validate(new CertDirectory(dir).read(), SubjectNames.of(List.of("b.example")))
                .isValid())
        .isTrue();
  }

  @Test
  void keyTypeIsSelectable() {
    Path dir = tmp.resolve("rsa");
    assertThat(certs("--out", dir.toString(), "--dns", "localhost", "--key-type", "rsa-2048"))
        .isZero();
    assertThat(new CertDirectory(dir).read().privateKey().getAlgorithm()).isEqualTo("RSA");

    assertThat(certs("--out", tmp.resolve("x").toString(), "--dns", "a", "--key-type", "dsa"))
        .isNotZero();
    assertThat(err.toString()).contains("ec-p256, rsa-2048, rsa-3072");
  }
}
