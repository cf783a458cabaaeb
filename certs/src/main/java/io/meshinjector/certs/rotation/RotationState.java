package io.meshinjector.certs.rotation;

import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.CertsException;
import io.meshinjector.certs.Pem;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A self-managed set: what clients trust and the server presents ({@code set}, whose CA list is the
 * caBundle) and the CA that signs new serving certs ({@code signer}). Either may be null: nothing
 * stored yet, or a set whose CA key is unknown.
 *
 * @param signerProblem why {@code signer} is null although a set is stored (for the plan's reason),
 *     or null
 */
public record RotationState(CertificateSet set, CertificateAuthority signer, String signerProblem) {
  /** Secret key for the signing CA's private key, next to ca.crt, tls.crt and tls.key. */
  public static final String CA_KEY = "ca.key";

  public RotationState(CertificateSet set, CertificateAuthority signer) {
    this(set, signer, null);
  }

  public static RotationState empty() {
    return new RotationState(null, null);
  }

  public List<X509Certificate> caBundle() {
    return set == null ? List.of() : set.caCertificates();
  }

  /** PEM text by Secret key: ca.crt, ca.key, tls.crt, tls.key. */
  public Map<String, String> toData() {
    Map<String, String> data = new LinkedHashMap<>();
    if (set != null) {
      data.put(CertificateSet.CA_CRT, set.caPem());
      data.put(CertificateSet.TLS_CRT, set.certificatePem());
      data.put(CertificateSet.TLS_KEY, set.privateKeyPem());
    }
    if (signer != null) {
      data.put(CA_KEY, signer.privateKeyPem());
    }
    return data;
  }

  /**
   * Reads {@link #toData()}'s form. The signer is the newest CA in ca.crt whose public key fits
   * ca.key. A ca.key that is missing, cannot be read or fits none leaves the signer unknown, and
   * the planner then rolls over to a new CA while ca.crt's CAs stay in the bundle: failing here
   * instead would fail every pass until the serving cert expired.
   */
  public static RotationState fromData(Map<String, String> data) {
    String tlsCrt = data.get(CertificateSet.TLS_CRT);
    String tlsKey = data.get(CertificateSet.TLS_KEY);
    if (isBlank(tlsCrt) || isBlank(tlsKey)) {
      return empty();
    }
    CertificateSet set;
    try {
      set = CertificateSet.fromPem(data.get(CertificateSet.CA_CRT), tlsCrt, tlsKey);
    } catch (CertsException e) {
      // an unreadable set is replaced like a missing one, and the reason is in the plan
      return empty();
    }
    String caKey = data.get(CA_KEY);
    if (isBlank(caKey)) {
      return new RotationState(set, null, "no " + CA_KEY + " to sign with");
    }
    PrivateKey key;
    try {
      key = Pem.readPrivateKey(caKey);
    } catch (CertsException e) {
      return new RotationState(set, null, CA_KEY + " cannot be read: " + e.getMessage());
    }
    List<X509Certificate> cas = set.caCertificates();
    for (int i = cas.size() - 1; i >= 0; i--) {
      if (CertificateValidator.keyMatches(cas.get(i), key)) {
        return new RotationState(set, new CertificateAuthority(cas.get(i), key));
      }
    }
    return new RotationState(set, null, CA_KEY + " fits no CA in " + CertificateSet.CA_CRT);
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
