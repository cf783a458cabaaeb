package io.meshinjector.certs;

import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Checks a set the way a TLS client would: the JDK's PKIX validator for the chain and validity at
 * the clock's time, SAN matching for names, and a signature round trip for key and cert belonging
 * together.
 */
public final class CertificateValidator {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Clock clock;

  public CertificateValidator(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * What is wrong with {@code set} at the clock's time: not yet or no longer valid, a key that does
   * not belong to the cert, a cert that does not chain to ca.crt, or a name of {@code required} the
   * cert does not cover.
   */
  public Validation validate(CertificateSet set, SubjectNames required) {
    Objects.requireNonNull(required, "required");
    Instant now = clock.instant();
    List<String> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    X509Certificate cert = set.certificate();
    if (now.isBefore(cert.getNotBefore().toInstant())) {
      problems.add("tls.crt is not valid before " + cert.getNotBefore().toInstant());
    }
    if (!now.isBefore(cert.getNotAfter().toInstant())) {
      problems.add("tls.crt expired at " + cert.getNotAfter().toInstant());
    }
    if (!keyMatches(cert, set.privateKey())) {
      problems.add("tls.key does not belong to tls.crt");
    }
    if (set.caCertificates().isEmpty()) {
      warnings.add("no ca.crt, chain not checked");
    } else {
      String chainProblem = chainProblem(cert, set.caCertificates(), now);
      if (chainProblem != null) {
        problems.add("tls.crt does not chain to ca.crt: " + chainProblem);
      }
    }
    List<String> missing = missingNames(cert, required);
    if (!missing.isEmpty()) {
      problems.add("tls.crt does not cover " + String.join(", ", missing));
    }
    return new Validation(problems, warnings);
  }

  /** null when the PKIX validation of {@code leaf} against {@code cas} at {@code at} passes. */
  public static String chainProblem(
      X509Certificate leaf, Collection<X509Certificate> cas, Instant at) {
    if (cas.isEmpty()) {
      return "no CA certificates";
    }
    try {
      Set<TrustAnchor> anchors = new HashSet<>();
      for (X509Certificate ca : cas) {
        anchors.add(new TrustAnchor(ca, null));
      }
      PKIXParameters params = new PKIXParameters(anchors);
      // self-managed CAs publish no CRL or OCSP; trust comes from the bundle alone
      params.setRevocationEnabled(false);
      params.setDate(Date.from(at));
      var path = CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf));
      CertPathValidator.getInstance("PKIX").validate(path, params);
      return null;
    } catch (CertPathValidatorException e) {
      return e.getMessage();
    } catch (GeneralSecurityException e) {
      throw new CertsException("cannot run the PKIX validator: " + e.getMessage(), e);
    }
  }

  /** Signs a random challenge and verifies it with the cert's public key. */
  public static boolean keyMatches(X509Certificate certificate, PrivateKey key) {
    String algorithm = KeyType.signatureAlgorithmFor(key);
    if (!certificate.getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
      return false;
    }
    try {
      byte[] challenge = new byte[32];
      RANDOM.nextBytes(challenge);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(challenge);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** The cert's SANs (DNS and IP); the CN is ignored, as modern clients ignore it. */
  public static SubjectNames namesOf(X509Certificate certificate) {
    List<String> dns = new ArrayList<>();
    List<String> ips = new ArrayList<>();
    try {
      Collection<List<?>> sans = certificate.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          int type = (Integer) san.get(0);
          if (type == 2) {
            dns.add(((String) san.get(1)).toLowerCase(Locale.ROOT));
          } else if (type == 7) {
            ips.add((String) san.get(1));
          }
        }
      }
    } catch (CertificateParsingException e) {
      throw new CertsException("cannot read subjectAltName: " + e.getMessage(), e);
    }
    return new SubjectNames(dns, ips);
  }

  /** Names of {@code required} that {@code certificate} does not cover. */
  public static List<String> missingNames(X509Certificate certificate, SubjectNames required) {
    SubjectNames present = namesOf(certificate);
    List<String> missing = new ArrayList<>();
    for (String name : required.all()) {
      if (!matches(present, name)) {
        missing.add(name);
      }
    }
    return missing;
  }

  /** Hostname verification as RFC 6125 has it: IPs against IP SANs, names against DNS SANs. */
  public static boolean matchesHost(X509Certificate certificate, String host) {
    return matches(namesOf(certificate), host);
  }

  private static boolean matches(SubjectNames present, String host) {
    String h = host.trim();
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (SubjectNames.isIpLiteral(h)) {
      byte[] wanted = SubjectNames.parseIp(h).getAddress();
      for (String ip : present.ipAddresses()) {
        InetAddress address = SubjectNames.parseIp(ip);
        if (Arrays.equals(address.getAddress(), wanted)) {
          return true;
        }
      }
      return false;
    }
    String name = h.toLowerCase(Locale.ROOT);
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    for (String san : present.dnsNames()) {
      if (san.equals(name)) {
        return true;
      }
      // a wildcard stands for exactly one leftmost label, never for a dot
      if (san.startsWith("*.")) {
        int dot = name.indexOf('.');
        if (dot > 0 && name.substring(dot).equals(san.substring(1))) {
          return true;
        }
      }
    }
    return false;
  }
}
