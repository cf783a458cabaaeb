package io.meshinjector.webhook.settings;

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
    Duration servingValidity) {

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
              + servingValidity.toDays()
              + "d) must not be longer than 'webhook.tls.caValidity' ("
              + caValidity.toDays()
              + "d): a serving cert cannot outlive the CA that signs it");
    }
    try {
      // the parameters, not the accessors: fields are assigned only after this body
      policy(caValidity, servingValidity);
    } catch (IllegalArgumentException e) {
      // checked at start-up, not when a replica first leads, so a bad value never waits for that
      throw new ConfigException(
          "config keys 'webhook.tls.caValidity' / 'webhook.tls.servingValidity': "
              + e.getMessage());
    }
  }

  public static TlsSettings from(MeshConfig config) {
    return from(config, System.getenv("POD_NAMESPACE"));
  }

  /** {@code podNamespace} null or blank means {@value #DEFAULT_NAMESPACE}. */
  public static TlsSettings from(MeshConfig config, String podNamespace) {
    ConfigSection s = config.section("webhook").section("tls");
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
            s.duration("servingValidity"));
    s.done();
    return settings;
  }

  /** The self-managed leader's lifetimes; renewal share, overlap and key type stay the defaults. */
  public RotationPolicy rotationPolicy() {
    return policy(caValidity, servingValidity);
  }

  private static RotationPolicy policy(Duration caValidity, Duration servingValidity) {
    RotationPolicy defaults = RotationPolicy.defaults();
    return new RotationPolicy(
        caValidity,
        servingValidity,
        defaults.renewFraction(),
        defaults.overlap(),
        defaults.keyType());
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

  private static void notBlank(String key, String value) {
    if (value == null || value.isBlank()) {
      throw new ConfigException("config key '" + key + "' must not be empty");
    }
  }
}
