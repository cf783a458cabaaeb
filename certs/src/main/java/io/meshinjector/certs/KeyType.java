package io.meshinjector.certs;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;

/** Key algorithms the module issues. EC P-256 is the default: small, fast, accepted everywhere. */
public enum KeyType {
  EC_P256("EC"),
  RSA_2048("RSA"),
  RSA_3072("RSA");

  private final String algorithm;

  KeyType(String algorithm) {
    this.algorithm = algorithm;
  }

  public static KeyType defaultType() {
    return EC_P256;
  }

  /** Parses {@code ec}, {@code ec-p256}, {@code rsa}, {@code rsa-2048}, {@code rsa-3072}. */
  public static KeyType parse(String value) {
    return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "ec", "ecdsa", "ec-p256", "p256", "p-256", "ec_p256" -> EC_P256;
      case "rsa", "rsa-2048", "rsa2048", "rsa_2048" -> RSA_2048;
      case "rsa-3072", "rsa3072", "rsa_3072" -> RSA_3072;
      default ->
          throw new IllegalArgumentException(
              "unknown key type '" + value + "'; allowed: ec-p256, rsa-2048, rsa-3072");
    };
  }

  public KeyPair generate() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
      switch (this) {
        case EC_P256 -> generator.initialize(new ECGenParameterSpec("secp256r1"));
        case RSA_2048 -> generator.initialize(2048);
        case RSA_3072 -> generator.initialize(3072);
      }
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new CertsException("cannot generate a " + this + " key pair", e);
    }
  }

  public boolean isRsa() {
    return algorithm.equals("RSA");
  }

  /** The signature algorithm that fits an existing signing key (a CA loaded from disk). */
  static String signatureAlgorithmFor(PrivateKey key) {
    return switch (key.getAlgorithm()) {
      case "EC", "ECDSA" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      default ->
          throw new CertsException("unsupported signing key algorithm " + key.getAlgorithm());
    };
  }
}
