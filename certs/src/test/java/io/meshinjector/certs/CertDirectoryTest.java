package io.meshinjector.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertDirectoryTest {
  @TempDir Path root;

  private final MutableClock clock = MutableClock.at("2026-11-22T10:00:00Z");

  @Test
  void writeSetWritesTheThreeFilesWithAPrivateKey() throws Exception {
    Path out = root.resolve("certs");

    WriteResult result =
        CertDirectory.writeSet(
            out, List.of("web.shop.svc", "localhost"), 30, false, KeyType.EC_P256, clock);

    assertThat(result).isInstanceOf(WriteResult.Written.class);
    assertThat(result.message())
        .contains("wrote ca.crt, tls.crt and tls.key to " + out)
        .contains("web.shop.svc");
    try (var files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("no temp files left behind")
          .containsExactlyInAnyOrder("ca.crt", "tls.crt", "tls.key");
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("tls.key"))))
        .isEqualTo("rw-------");
    assertThat(Files.readString(out.resolve("tls.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
    CertificateSet set = new CertDirectory(out, clock).read();
    assertThat(
            new CertificateValidator(clock)
                .validate(set, SubjectNames.of(List.of("web.shop.svc", "127.0.0.1")))
                .problems())
        .isEmpty();
    assertThat(set.notAfter()).isEqualTo(clock.instant().plus(Duration.ofDays(30)));
  }

  @Test
  void refusesToOverwriteAValidSetForTheSameNamesUnlessForced() throws Exception {
    CertDirectory.writeSet(
        root, List.of("a.example", "b.example"), 30, false, KeyType.EC_P256, clock);
    String before = Files.readString(root.resolve("tls.crt"));

    WriteResult same =
        CertDirectory.writeSet(
            root, List.of("b.example", "a.example"), 30, false, KeyType.EC_P256, clock);
    WriteResult covered =
        CertDirectory.writeSet(root, List.of("a.example"), 30, false, KeyType.EC_P256, clock);

    assertThat(same).isInstanceOf(WriteResult.RefusedValid.class);
    assertThat(same.message())
        .contains("refusing to overwrite the valid certificate set in " + root)
        .contains("a.example")
        .contains("--force");
    assertThat(covered)
        .as("every requested name is covered")
        .isInstanceOf(WriteResult.RefusedValid.class);
    assertThat(Files.readString(root.resolve("tls.crt"))).isEqualTo(before);

    WriteResult forced =
        CertDirectory.writeSet(
            root, List.of("a.example", "b.example"), 30, true, KeyType.EC_P256, clock);

    assertThat(forced).isInstanceOf(WriteResult.Written.class);
    assertThat(Files.readString(root.resolve("tls.crt"))).isNotEqualTo(before);
    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("tls.key"))))
        .isEqualTo("rw-------");
  }

  @Test
  void aValidSetForOtherNamesIsReplacedWithoutForce() throws Exception {
    CertDirectory.writeSet(root, List.of("a.example"), 30, false, KeyType.EC_P256, clock);
    String before = Files.readString(root.resolve("tls.crt"));

    WriteResult result =
        CertDirectory.writeSet(
            root, List.of("a.example", "b.example"), 30, false, KeyType.EC_P256, clock);

    assertThat(result).isInstanceOf(WriteResult.Written.class);
    assertThat(result.message())
        .contains("replaced the set there (tls.crt does not cover b.example), with a new CA");
    assertThat(Files.readString(root.resolve("tls.crt"))).isNotEqualTo(before);
    CertificateSet set = new CertDirectory(root, clock).read();
    assertThat(
            new CertificateValidator(clock)
                .validate(set, SubjectNames.of(List.of("a.example", "b.example")))
                .problems())
        .isEmpty();
  }

  @Test
  void anExpiredSetIsReplacedWithoutForce() {
    CertDirectory.writeSet(root, List.of("a.example"), 1, false, KeyType.EC_P256, clock);
    clock.advance(Duration.ofDays(2));

    WriteResult result =
        CertDirectory.writeSet(root, List.of("a.example"), 1, false, KeyType.EC_P256, clock);

    assertThat(result).isInstanceOf(WriteResult.Written.class);
  }

  @Test
  void anUnreadableSetIsReplacedWithoutForce() throws Exception {
    Files.writeString(root.resolve("tls.crt"), "not a certificate");
    Files.writeString(root.resolve("tls.key"), "not a key");

    WriteResult result =
        CertDirectory.writeSet(root, List.of("a.example"), 1, false, KeyType.EC_P256, clock);

    assertThat(result).isInstanceOf(WriteResult.Written.class);
    assertThat(new CertDirectory(root, clock).read().certificate())
        .isEqualTo(((WriteResult.Written) result).set().certificate());
  }

  @Test
  void ensureGeneratesASelfSignedSetInAnEmptyFolderAndKeepsItAfterwards() {
    CertDirectory dir = new CertDirectory(root.resolve("tls"), clock);
    SubjectNames names = SubjectNames.of(List.of("localhost"));

    EnsureResult first = dir.ensure(names, Duration.ofDays(365), KeyType.EC_P256);
    X509Certificate generated = dir.read().certificate();
    EnsureResult second = dir.ensure(names, Duration.ofDays(365), KeyType.EC_P256);

    assertThat(first).isInstanceOf(EnsureResult.Generated.class);
    assertThat(second).isInstanceOf(EnsureResult.Existing.class);
    assertThat(((EnsureResult.Existing) second).validation().isValid()).isTrue();
    assertThat(dir.read().certificate()).isEqualTo(generated);
  }

  @Test
  void ensureLeavesAnInvalidExistingSetAloneAndSaysWhy() {
    CertDirectory.writeSet(root, List.of("localhost"), 1, false, KeyType.EC_P256, clock);
    clock.advance(Duration.ofDays(2));

    EnsureResult result =
        new CertDirectory(root, clock)
            .ensure(SubjectNames.of(List.of("localhost")), Duration.ofDays(1), KeyType.EC_P256);

    assertThat(result).isInstanceOf(EnsureResult.Existing.class);
    assertThat(((EnsureResult.Existing) result).validation().summary()).contains("expired");
  }

  @Test
  void aKeyWithoutItsCertIsAnError() throws Exception {
    Files.writeString(
        root.resolve("tls.key"), Pem.privateKey(KeyType.EC_P256.generate().getPrivate()));

    assertThatThrownBy(() -> new CertDirectory(root, clock).readIfPresent())
        .isInstanceOf(CertsException.class)
        .hasMessageContaining("tls.key without tls.crt");
  }

  @Test
  void writeSetChecksItsArguments() {
    assertThatThrownBy(
            () -> CertDirectory.writeSet(root, List.of(), 1, false, KeyType.defaultType(), clock))
        .hasMessageContaining("--dns");
    assertThatThrownBy(
            () ->
                CertDirectory.writeSet(root, List.of("a"), 0, false, KeyType.defaultType(), clock))
        .hasMessageContaining("--days");
  }
}
