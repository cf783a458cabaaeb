package io.meshinjector.engine.linkerd;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The per-workload configuration annotations of Linkerd's proxy injector (linkerd/linkerd2 {@code
 * pkg/k8s/labels.go}, read as {@code pkg/inject/inject.go} reads them), with the format each
 * accepts and whether a pod inherits it from its namespace. How each renders is the templates'
 * business; docs/linkerd-annotations.md lists them all, and those left out with the reason.
 */
public enum LinkerdAnnotation {
  PROXY_IMAGE("config.linkerd.io/proxy-image", true, image()),
  PROXY_VERSION("config.linkerd.io/proxy-version", true, tag()),
  IMAGE_PULL_POLICY(
      "config.linkerd.io/image-pull-policy",
      true,
      new ValueFormat.OneOf(List.of("Always", "IfNotPresent", "Never"))),
  DEBUG_IMAGE("config.linkerd.io/debug-image", false, image()),
  DEBUG_IMAGE_VERSION("config.linkerd.io/debug-image-version", false, tag()),
  DEBUG_IMAGE_PULL_POLICY(
      "config.linkerd.io/debug-image-pull-policy",
      false,
      new ValueFormat.OneOf(List.of("Always", "IfNotPresent", "Never"))),
  ENABLE_DEBUG_SIDECAR("config.linkerd.io/enable-debug-sidecar", true, new ValueFormat.GoBool()),
  CONTROL_PORT("config.linkerd.io/control-port", true, new ValueFormat.Port()),
  INBOUND_PORT("config.linkerd.io/inbound-port", true, new ValueFormat.Port()),
  ADMIN_PORT("config.linkerd.io/admin-port", true, new ValueFormat.Port()),
  OUTBOUND_PORT("config.linkerd.io/outbound-port", true, new ValueFormat.Port()),
  SKIP_INBOUND_PORTS("config.linkerd.io/skip-inbound-ports", true, new ValueFormat.Ports()),
  SKIP_OUTBOUND_PORTS("config.linkerd.io/skip-outbound-ports", true, new ValueFormat.Ports()),
  SKIP_SUBNETS("config.linkerd.io/skip-subnets", true, new ValueFormat.Cidrs()),
  OPAQUE_PORTS("config.linkerd.io/opaque-ports", true, new ValueFormat.OpaquePorts()),
  PROXY_CPU_REQUEST("config.linkerd.io/proxy-cpu-request", true, new ValueFormat.Quantity()),
  PROXY_CPU_LIMIT("config.linkerd.io/proxy-cpu-limit", true, new ValueFormat.Quantity()),
  PROXY_CPU_RATIO_LIMIT("config.linkerd.io/proxy-cpu-ratio-limit", false, new ValueFormat.Ratio()),
  PROXY_MEMORY_REQUEST("config.linkerd.io/proxy-memory-request", true, new ValueFormat.Quantity()),
  PROXY_MEMORY_LIMIT("config.linkerd.io/proxy-memory-limit", true, new ValueFormat.Quantity()),
  PROXY_EPHEMERAL_STORAGE_REQUEST(
      "config.linkerd.io/proxy-ephemeral-storage-request", true, new ValueFormat.Quantity()),
  PROXY_EPHEMERAL_STORAGE_LIMIT(
      "config.linkerd.io/proxy-ephemeral-storage-limit", true, new ValueFormat.Quantity()),
  PROXY_UID("config.linkerd.io/proxy-uid", true, new ValueFormat.Id(1)),
  PROXY_GID("config.linkerd.io/proxy-gid", true, new ValueFormat.Id(-1)),
  PROXY_ADMIN_SHUTDOWN("config.linkerd.io/proxy-admin-shutdown", true, enabledDisabled()),
  PROXY_LOG_LEVEL(
      "config.linkerd.io/proxy-log-level",
      true,
      new ValueFormat.Text(
          Pattern.compile("[^\\s,][^\\s]*"), "a log filter such as warn,linkerd=info")),
  PROXY_LOG_HTTP_HEADERS(
      "config.linkerd.io/proxy-log-http-headers",
      true,
      new ValueFormat.OneOf(List.of("insecure", "off"))),
  PROXY_LOG_FORMAT(
      "config.linkerd.io/proxy-log-format", true, new ValueFormat.OneOf(List.of("plain", "json"))),
  ENABLE_EXTERNAL_PROFILES(
      "config.linkerd.io/enable-external-profiles", true, new ValueFormat.GoBool()),
  PROXY_REQUIRE_IDENTITY_INBOUND_PORTS(
      "config.linkerd.io/proxy-require-identity-inbound-ports", true, new ValueFormat.Ports()),
  PROXY_METRICS_HOSTNAME_LABELS(
      "config.linkerd.io/proxy-metrics-hostname-labels", true, new ValueFormat.GoBool()),
  PROXY_OUTBOUND_CONNECT_TIMEOUT(
      "config.linkerd.io/proxy-outbound-connect-timeout", true, new ValueFormat.Duration(true)),
  PROXY_INBOUND_CONNECT_TIMEOUT(
      "config.linkerd.io/proxy-inbound-connect-timeout", true, new ValueFormat.Duration(true)),
  PROXY_OUTBOUND_DISCOVERY_CACHE_UNUSED_TIMEOUT(
      "config.linkerd.io/proxy-outbound-discovery-cache-unused-timeout",
      true,
      new ValueFormat.Duration(false)),
  PROXY_INBOUND_DISCOVERY_CACHE_UNUSED_TIMEOUT(
      "config.linkerd.io/proxy-inbound-discovery-cache-unused-timeout",
      true,
      new ValueFormat.Duration(false)),
  PROXY_DISABLE_OUTBOUND_PROTOCOL_DETECT_TIMEOUT(
      "config.linkerd.io/proxy-disable-outbound-protocol-detect-timeout",
      true,
      new ValueFormat.GoBool()),
  PROXY_DISABLE_INBOUND_PROTOCOL_DETECT_TIMEOUT(
      "config.linkerd.io/proxy-disable-inbound-protocol-detect-timeout",
      true,
      new ValueFormat.GoBool()),
  ENABLE_GATEWAY("config.linkerd.io/enable-gateway", false, new ValueFormat.GoBool()),
  DEFAULT_INBOUND_POLICY(
      "config.linkerd.io/default-inbound-policy",
      true,
      new ValueFormat.OneOf(
          List.of(
              "all-unauthenticated",
              "all-authenticated",
              "cluster-unauthenticated",
              "cluster-authenticated",
              "deny",
              "audit"))),
  ACCESS_LOG(
      "config.linkerd.io/access-log", true, new ValueFormat.OneOf(List.of("apache", "json"))),
  SHUTDOWN_GRACE_PERIOD(
      "config.linkerd.io/shutdown-grace-period", true, new ValueFormat.Duration(true)),
  PROXY_ADDITIONAL_ENV("config.linkerd.io/proxy-additional-env", true, new ValueFormat.EnvList()),
  WAIT_BEFORE_EXIT_SECONDS(
      "config.alpha.linkerd.io/proxy-wait-before-exit-seconds", true, new ValueFormat.Seconds()),
  /** The layout: this and the two older spellings below decide with the per-node rule. */
  NATIVE_SIDECAR("config.linkerd.io/proxy-enable-native-sidecar", true, new ValueFormat.GoBool()),
  NATIVE_SIDECAR_BETA(
      "config.beta.linkerd.io/proxy-enable-native-sidecar", false, new ValueFormat.GoBool()),
  NATIVE_SIDECAR_ALPHA(
      "config.alpha.linkerd.io/proxy-enable-native-sidecar", true, new ValueFormat.GoBool()),
  PROXY_AWAIT("config.linkerd.io/proxy-await", true, enabledDisabled()),
  /**
   * Read by Linkerd only with a root init container, which this injector never renders: warned
   * about and ignored.
   */
  CLOSE_WAIT_TIMEOUT("config.linkerd.io/close-wait-timeout", false, new ValueFormat.Duration(true)),
  /**
   * Linkerd's injector sets LINKERD2_PROXY_INBOUND_PORTS from the pod's own ports after applying
   * this annotation, so it has no effect there; the same here.
   */
  POD_INBOUND_PORTS("config.linkerd.io/pod-inbound-ports", true, new ValueFormat.Ports());

  /** Linkerd's own opt-out (and ingress mode), on a pod or its namespace. */
  public static final String INJECT = "linkerd.io/inject";

  private final String key;
  private final boolean inherited;
  private final ValueFormat format;

  LinkerdAnnotation(String key, boolean inherited, ValueFormat format) {
    this.key = key;
    this.inherited = inherited;
    this.format = format;
  }

  public String key() {
    return key;
  }

  /**
   * Whether a pod without it takes its namespace's (Linkerd's {@code ProxyAnnotations} and {@code
   * ProxyAlphaConfigAnnotations} lists).
   */
  public boolean inherited() {
    return inherited;
  }

  public ValueFormat format() {
    return format;
  }

  private static ValueFormat image() {
    return new ValueFormat.Text(
        Pattern.compile("[a-z0-9][a-zA-Z0-9._/:@-]*[a-zA-Z0-9]|[a-z0-9]"),
        "an image name such as cr.l5d.io/linkerd/proxy (no tag, no spaces)");
  }

  private static ValueFormat tag() {
    return new ValueFormat.Text(
        Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"),
        "an image tag: letters, digits, '_', '.' and '-', at most 128 characters");
  }

  private static ValueFormat enabledDisabled() {
    return new ValueFormat.OneOf(List.of("enabled", "disabled"));
  }
}
