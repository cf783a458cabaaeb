package io.meshinjector.webhook.tls;

import io.meshinjector.certs.SubjectNames;
import io.meshinjector.certs.rotation.RotationPolicy;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code webhook.tls:} section: who manages the serving certificate and the names of the
 * objects involved. {@code namespace} is not configured: it is the pod's own ({@code
 * POD_NAMESPACE}), because the Secret is mounted into the pod and the Lease elects among its
 * replicas.
 */
public record TlsSettings(
    TlsMode mode,
    String namespace,
    String secretName,
    String webhookConfigurationName,
    String serviceName,
    String leaseName,
    Duration resyncPeriod,
    Duration expiryWarning,
    Duration caValidity,
    Duration servingValidity,
    Duration renewBefore,
    Duration overlap) {

  public static final String DEFAULT_NAMESPACE = "mesh-injector";

  public TlsSettings {
    Objects.requireNonNull(mode, "mode");
    notBlank("namespace", namespace);
    notBlank("webhook.tls.secretName", secretName);
    notBlank("webhook.tls.webhookConfigurationName", webhookConfigurationName);
    notBlank("webhook.tls.serviceName", serviceName);
    notBlank("webhook.tls.leaseName", leaseName);
    ConfigException.requirePositive("webhook.tls.resyncPeriod", resyncPeriod);
    ConfigException.requirePositive("webhook.tls.expiryWarning", expiryWarning);
    ConfigException.requirePositive("webhook.tls.caValidity", caValidity);
    ConfigException.requirePositive("webhook.tls.servingValidity", servingValidity);
    if (caValidity.compareTo(servingValidity) < 0) {
      throw new ConfigException(
          "config key 'webhook.tls.servingValidity' ("
              + text(servingValidity)
              + ") must not be longer than 'webhook.tls.caValidity' ("
              + text(caValidity)
              + "): a serving cert cannot outlive the CA that signs it");
    }
    Objects.requireNonNull(renewBefore, "renewBefore");
    if (renewBefore.isNegative()
        || renewBefore.isZero()
        || renewBefore.compareTo(servingValidity) >= 0) {
      throw new ConfigException(
          "config key 'webhook.tls.renewBefore' ("
              + text(renewBefore)
              + ") must be longer than 0 and shorter than 'webhook.tls.servingValidity' ("
              + text(servingValidity)
              + ")");
    }
    if (overlap == null || overlap.isNegative()) {
      throw new ConfigException("config key 'webhook.tls.overlap' must be 0s or longer");
    }
    try {
      // the parameters, not the accessors: fields are assigned only after this body
      policy(caValidity, servingValidity, renewBefore, overlap);
    } catch (IllegalArgumentException e) {
      // checked at start-up, not when a replica first leads, so a bad value never waits for that
      throw new ConfigException(
          "config keys 'webhook.tls.caValidity' / 'webhook.tls.servingValidity' /"
              + " 'webhook.tls.renewBefore' / 'webhook.tls.overlap': "
              + e.getMessage());
    }
  }

  public static TlsSettings from(MeshConfig config) {
    return from(config, System.getenv("POD_NAMESPACE"));
  }

  /** {@code podNamespace} null or blank means {@value #DEFAULT_NAMESPACE}. */
  public static TlsSettings from(MeshConfig config, String podNamespace) {
    ConfigSection s = config.section("webhook").section("tls");
    Duration servingValidity = s.duration("servingValidity");
    TlsSettings settings =
        new TlsSettings(
            s.choice("mode", TlsMode.byId()),
            podNamespace == null || podNamespace.isBlank() ? DEFAULT_NAMESPACE : podNamespace,
            s.text("secretName"),
            s.text("webhookConfigurationName"),
            s.text("serviceName"),
            s.text("leaseName"),
            s.duration("resyncPeriod"),
            s.duration("expiryWarning"),
            s.duration("caValidity"),
            servingValidity,
            s.text("renewBefore").isBlank()
                ? servingValidity.dividedBy(3)
                : s.duration("renewBefore"),
            s.duration("overlap"));
    s.done();
    return settings;
  }

  /**
   * The self-managed leader's lifetimes, renewal point and overlap; the key type stays the default.
   * {@code renewBefore} is said of the serving cert; the CA is renewed at the same share of its own
   * lifetime (a third before its end by default, as before the key existed).
   */
  public RotationPolicy rotationPolicy() {
    return policy(caValidity, servingValidity, renewBefore, overlap);
  }

  private static RotationPolicy policy(
      Duration caValidity, Duration servingValidity, Duration renewBefore, Duration overlap) {
    double renewFraction =
        servingValidity.equals(renewBefore.multipliedBy(3))
            ? RotationPolicy.TWO_THIRDS
            : 1.0 - (double) renewBefore.toMillis() / servingValidity.toMillis();
    return new RotationPolicy(
        caValidity, servingValidity, renewFraction, overlap, RotationPolicy.defaults().keyType());
  }

  /** The Service's four DNS names in this namespace, which every issued serving cert covers. */
  public List<String> serviceNames() {
    return SubjectNames.serviceNames(serviceName, namespace);
  }

  /** The names the leader issues serving certs for. */
  public SubjectNames servingNames() {
    return SubjectNames.of(serviceNames());
  }

  /**
   * Names of the self-signed cert {@code serve} writes into an empty folder: the configured ones
   * and, when the pod's namespace is known, the Service's names, so the API server can reach a
   * replica started that way.
   */
  public static List<String> selfSignedNames(
      MeshConfig config, List<String> configured, String podNamespace) {
    List<String> names = new ArrayList<>(configured);
    if (podNamespace != null && !podNamespace.isBlank()) {
      names.addAll(from(config, podNamespace).serviceNames());
    }
    return List.copyOf(names);
  }

  /** The {@code secret/MWC} part of a log line, so one grep finds every line about them. */
  public String describe() {
    return "secret="
        + namespace
        + "/"
        + secretName
        + " mutatingwebhookconfiguration="
        + webhookConfigurationName;
  }

  /** A duration as the config writes it: 90d, 4m, 30s. */
  static String text(Duration d) {
    long seconds = d.toSeconds();
    if (seconds % 86400 == 0) {
      return seconds / 86400 + "d";
    }
    if (seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    if (seconds % 60 == 0) {
      return seconds / 60 + "m";
    }
    return seconds + "s";
  }

  private static void notBlank(String key, String value) {
    if (value == null || value.isBlank()) {
      throw new ConfigException("config key '" + key + "' must not be empty");
    }
  }
}
