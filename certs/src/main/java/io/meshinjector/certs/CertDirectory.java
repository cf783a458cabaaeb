package io.meshinjector.certs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A folder holding {@code ca.crt}, {@code tls.crt} and {@code tls.key}: what {@code certs --out}
 * writes and {@code serve --tls-dir} reads. Each file is replaced atomically (temp file in the same
 * folder, then a rename), so a server reloading on change never reads half a file.
 */
public final class CertDirectory {
  private static final Set<PosixFilePermission> KEY_MODE =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> CERT_MODE =
      PosixFilePermissions.fromString("rw-r--r--");

  private final Path directory;
  private final Clock clock;

  public CertDirectory(Path directory, Clock clock) {
    this.directory = Objects.requireNonNull(directory, "directory");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  public CertDirectory(Path directory) {
    this(directory, Clock.systemUTC());
  }

  public Path caCrt() {
    return directory.resolve(CertificateSet.CA_CRT);
  }

  public Path tlsCrt() {
    return directory.resolve(CertificateSet.TLS_CRT);
  }

  public Path tlsKey() {
    return directory.resolve(CertificateSet.TLS_KEY);
  }

  /**
   * The {@code certs} command: a new CA and a serving cert for {@code dnsNames} (DNS names or IPs),
   * valid for {@code days}, unless a valid set that covers every one of those names is already
   * there and {@code force} is false. A valid set for other names is replaced: refusing it would
   * leave the caller with a cert its clients reject for the name they dial.
   */
  public static WriteResult writeSet(
      Path out, List<String> dnsNames, int days, boolean force, KeyType keyType, Clock clock) {
    if (days < 1) {
      throw new IllegalArgumentException("--days must be at least 1, was " + days);
    }
    SubjectNames names = SubjectNames.of(dnsNames);
    if (names.isEmpty()) {
      throw new IllegalArgumentException("at least one --dns name is needed");
    }
    CertDirectory dir = new CertDirectory(out, clock);
    // checked before generating: an RSA key costs time and the answer may be "refused"
    if (!force) {
      Optional<CertificateSet> existing = dir.validExisting(names);
      if (existing.isPresent()) {
        return new WriteResult.RefusedValid(out, existing.get());
      }
    }
    CertificateSet set = new CertificateIssuer(clock).newSet(names, Duration.ofDays(days), keyType);
    return dir.write(set, force);
  }

  /**
   * Writes {@code set} unless the folder holds a valid set covering every name of {@code set}'s
   * certificate and {@code force} is false.
   */
  public WriteResult write(CertificateSet set, boolean force) {
    SubjectNames names = CertificateValidator.namesOf(set.certificate());
    String replaced = null;
    if (!force) {
      Optional<CertificateSet> existing = validExisting(names);
      if (existing.isPresent()) {
        return new WriteResult.RefusedValid(directory, existing.get());
      }
      replaced = replacedReason(names);
    }
    writeFiles(set);
    return new WriteResult.Written(directory, set, replaced);
  }

  /**
   * For {@code serve --tls-dir}: with no tls.crt and no tls.key there, writes a self-signed set for
   * {@code names}; otherwise reads what is there and reports whether it is valid.
   */
  public EnsureResult ensure(SubjectNames names, Duration validity, KeyType keyType) {
    Optional<CertificateSet> existing = readIfPresent();
    if (existing.isPresent()) {
      return new EnsureResult.Existing(validator().validate(existing.get(), names));
    }
    writeFiles(new CertificateIssuer(clock).newSet(names, validity, keyType));
    return new EnsureResult.Generated();
  }

  /**
   * The set in the folder, or empty when neither tls.crt nor tls.key exists. ca.crt is optional,
   * since a Secret from elsewhere may not carry it; one of tls.crt and tls.key without the other is
   * an error.
   */
  public Optional<CertificateSet> readIfPresent() {
    boolean crt = Files.exists(tlsCrt());
    boolean key = Files.exists(tlsKey());
    if (!crt && !key) {
      return Optional.empty();
    }
    if (!crt || !key) {
      throw new CertsException(
          directory + " holds " + (crt ? "tls.crt without tls.key" : "tls.key without tls.crt"));
    }
    return Optional.of(read());
  }

  public CertificateSet read() {
    String ca = Files.exists(caCrt()) ? readString(caCrt()) : null;
    try {
      return CertificateSet.fromPem(ca, readString(tlsCrt()), readString(tlsKey()));
    } catch (CertsException e) {
      throw new CertsException(directory + ": " + e.getMessage(), e);
    }
  }

  /** Writes ca.crt, then tls.key, then tls.crt, each atomically; tls.key is mode 0600. */
  public void writeFiles(CertificateSet set) {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new CertsException("cannot create " + directory + ": " + e.getMessage(), e);
    }
    writeAtomically(caCrt(), set.caPem(), CERT_MODE);
    writeAtomically(tlsKey(), set.privateKeyPem(), KEY_MODE);
    writeAtomically(tlsCrt(), set.certificatePem(), CERT_MODE);
  }

  /**
   * The set in the folder if it is valid for {@code names}; an unreadable or partial set counts as
   * not valid.
   */
  private Optional<CertificateSet> validExisting(SubjectNames names) {
    try {
      return readIfPresent().filter(set -> validator().validate(set, names).isValid());
    } catch (CertsException e) {
      return Optional.empty();
    }
  }

  /** Why a set already in the folder is being replaced, or null when there is none. */
  private String replacedReason(SubjectNames names) {
    try {
      return readIfPresent().map(set -> validator().validate(set, names).summary()).orElse(null);
    } catch (CertsException e) {
      return e.getMessage();
    }
  }

  private CertificateValidator validator() {
    return new CertificateValidator(clock);
  }

  private static String readString(Path file) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new CertsException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private void writeAtomically(Path target, String content, Set<PosixFilePermission> mode) {
    Path temp = null;
    try {
      // created with its final mode, so the key is never readable by others, not even briefly
      temp = createTemp(target.getFileName().toString(), mode);
      Files.writeString(temp, content, StandardCharsets.US_ASCII);
      try {
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      temp = null;
    } catch (IOException e) {
      throw new CertsException("cannot write " + target + ": " + e.getMessage(), e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException ignored) {
          // the write already failed; that error is the one to report
        }
      }
    }
  }

  private Path createTemp(String name, Set<PosixFilePermission> mode) throws IOException {
    if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return Files.createTempFile(
          directory, "." + name + ".", ".tmp", PosixFilePermissions.asFileAttribute(mode));
    }
    return Files.createTempFile(directory, "." + name + ".", ".tmp");
  }
}
