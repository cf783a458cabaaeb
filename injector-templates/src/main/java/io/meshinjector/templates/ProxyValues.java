package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.decision.ConfigOverride;
import io.meshinjector.engine.decision.ConfigOverrides;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.linkerd.LinkerdAnnotation;
import io.meshinjector.engine.linkerd.LinkerdConfig;
import io.meshinjector.engine.linkerd.Quantities;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The proxy's values as one pod has them: the config's, with the mesh's per-workload annotations
 * that apply to the pod over them (as Linkerd's {@code ApplyAnnotationOverrides} lays them over its
 * chart's values), and what Linkerd's partials derive from them. Package-private: it writes into
 * {@link TemplateValues}' per-pod map.
 */
final class ProxyValues {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LOG_FILTER = ",[{headers}]=off,[{request}]=off";

  /** Annotation to the value it overrides, for those that set one value as they are. */
  private static final Map<LinkerdAnnotation, String> DIRECT = new LinkedHashMap<>();

  static {
    DIRECT.put(LinkerdAnnotation.PROXY_IMAGE, "proxy.image");
    DIRECT.put(LinkerdAnnotation.PROXY_VERSION, "proxy.version");
    DIRECT.put(LinkerdAnnotation.IMAGE_PULL_POLICY, "proxy.imagePullPolicy");
    DIRECT.put(LinkerdAnnotation.CONTROL_PORT, "proxy.ports.control");
    DIRECT.put(LinkerdAnnotation.INBOUND_PORT, "proxy.ports.inbound");
    DIRECT.put(LinkerdAnnotation.ADMIN_PORT, "proxy.ports.admin");
    DIRECT.put(LinkerdAnnotation.OUTBOUND_PORT, "proxy.ports.outbound");
    DIRECT.put(LinkerdAnnotation.PROXY_UID, "proxy.uid");
    DIRECT.put(LinkerdAnnotation.PROXY_GID, "proxy.gid");
    DIRECT.put(LinkerdAnnotation.PROXY_LOG_LEVEL, "proxy.logLevel");
    DIRECT.put(LinkerdAnnotation.PROXY_LOG_HTTP_HEADERS, "proxy.logHTTPHeaders");
    DIRECT.put(LinkerdAnnotation.PROXY_LOG_FORMAT, "proxy.logFormat");
    DIRECT.put(LinkerdAnnotation.ENABLE_EXTERNAL_PROFILES, "proxy.enableExternalProfiles");
    DIRECT.put(
        LinkerdAnnotation.PROXY_REQUIRE_IDENTITY_INBOUND_PORTS,
        "proxy.requireIdentityOnInboundPorts");
    DIRECT.put(LinkerdAnnotation.PROXY_METRICS_HOSTNAME_LABELS, "proxy.metricsHostnameLabels");
    DIRECT.put(LinkerdAnnotation.PROXY_OUTBOUND_CONNECT_TIMEOUT, "proxy.outboundConnectTimeout");
    DIRECT.put(LinkerdAnnotation.PROXY_INBOUND_CONNECT_TIMEOUT, "proxy.inboundConnectTimeout");
    DIRECT.put(
        LinkerdAnnotation.PROXY_OUTBOUND_DISCOVERY_CACHE_UNUSED_TIMEOUT,
        "proxy.outboundDiscoveryCacheUnusedTimeout");
    DIRECT.put(
        LinkerdAnnotation.PROXY_INBOUND_DISCOVERY_CACHE_UNUSED_TIMEOUT,
        "proxy.inboundDiscoveryCacheUnusedTimeout");
    DIRECT.put(
        LinkerdAnnotation.PROXY_DISABLE_OUTBOUND_PROTOCOL_DETECT_TIMEOUT,
        "proxy.disableOutboundProtocolDetectTimeout");
    DIRECT.put(
        LinkerdAnnotation.PROXY_DISABLE_INBOUND_PROTOCOL_DETECT_TIMEOUT,
        "proxy.disableInboundProtocolDetectTimeout");
    DIRECT.put(LinkerdAnnotation.ENABLE_GATEWAY, "proxy.isGateway");
    DIRECT.put(LinkerdAnnotation.DEFAULT_INBOUND_POLICY, "proxy.defaultInboundPolicy");
    DIRECT.put(LinkerdAnnotation.ACCESS_LOG, "proxy.accessLog");
    DIRECT.put(LinkerdAnnotation.SHUTDOWN_GRACE_PERIOD, "proxy.shutdownGracePeriod");
    DIRECT.put(LinkerdAnnotation.WAIT_BEFORE_EXIT_SECONDS, "proxy.waitBeforeExitSeconds");
    DIRECT.put(LinkerdAnnotation.OPAQUE_PORTS, "proxy.opaquePorts");
    DIRECT.put(LinkerdAnnotation.PROXY_CPU_RATIO_LIMIT, "proxy.coresMaxRatio");
    DIRECT.put(LinkerdAnnotation.PROXY_ADMIN_SHUTDOWN, "proxy.enableShutdownEndpoint");
    DIRECT.put(LinkerdAnnotation.DEBUG_IMAGE, "proxy.debugContainer.image");
    DIRECT.put(LinkerdAnnotation.DEBUG_IMAGE_VERSION, "proxy.debugContainer.version");
    DIRECT.put(LinkerdAnnotation.DEBUG_IMAGE_PULL_POLICY, "proxy.debugContainer.imagePullPolicy");
  }

  /** The values a pod's annotations may set, and those derived per pod: per-pod values. */
  static final Set<String> NAMES;

  static {
    Set<String> n = new LinkedHashSet<>(DIRECT.values());
    n.addAll(
        List.of(
            "proxy.imageRef",
            "proxyInit.imageRef",
            "validator.imageRef",
            "proxy.resources",
            "proxy.cores",
            "proxyInit.inboundPortsToIgnore",
            "proxyInit.outboundPortsToIgnore",
            "proxyInit.subnetsToIgnore",
            "pod.proxyLog",
            "pod.proxyCoresMax",
            "pod.proxyProfileSuffixes",
            "pod.proxyIngressMode",
            "pod.proxyPreStop",
            "pod.proxyRunAsGroup",
            "pod.proxyAdditionalEnv",
            "pod.debugImageRef",
            "pod.debugImagePullPolicy",
            "pod.opaquePortsAnnotation"));
    NAMES = Set.copyOf(n);
  }

  private final Map<String, JsonNode> global;
  private final TemplateConfig config;
  private final Map<String, JsonNode> defaults;
  private final Set<String> defaultOpaquePorts;

  ProxyValues(TemplateConfig config) {
    this.config = config;
    this.global = config.values();
    Map<String, JsonNode> d = new HashMap<>();
    fromOverrides(ConfigOverrides.NONE, d);
    d.put("pod.proxyIngressMode", BooleanNode.FALSE);
    d.put("pod.proxyPreStop", F.textNode(""));
    d.put("pod.opaquePortsAnnotation", F.textNode(""));
    this.defaults = Map.copyOf(d);
    this.defaultOpaquePorts =
        Set.copyOf(Arrays.asList(config.values().get("proxy.opaquePorts").asText().split(",")));
  }

  /**
   * The values of a pod without annotations of its own, derived from the config once: the renderer
   * reads them after the pod's and before the config's.
   */
  Map<String, JsonNode> defaults() {
    return defaults;
  }

  /**
   * Puts into {@code local} the pod's proxy values that differ from {@link #defaults()}: those its
   * annotations (or its namespace's) set, and those its layout and ports decide.
   *
   * @param linkerd whether Linkerd's annotations are read (the engine resolved {@code overrides})
   */
  void put(
      Pod pod, Plan plan, ConfigOverrides overrides, boolean linkerd, Map<String, JsonNode> local) {
    if (!overrides.isEmpty()) {
      fromOverrides(overrides, local);
    }
    if (linkerd && pod.getMetadata().getAnnotations() != null) {
      String inject = pod.getMetadata().getAnnotations().get(LinkerdAnnotation.INJECT);
      if ("ingress".equals(inject)) {
        local.put("pod.proxyIngressMode", BooleanNode.TRUE);
      }
    }
    int wait = Integer.parseInt(text(local, "proxy.waitBeforeExitSeconds"));
    if (wait > 0 && plan.proxy() != ProxyPlacement.NATIVE_SIDECAR) {
      local.put("pod.proxyPreStop", F.textNode(Integer.toString(wait)));
    }
    if (linkerd && overrides.value(LinkerdAnnotation.OPAQUE_PORTS.key()).isEmpty()) {
      defaultOpaquePorts(pod.getSpec(), local);
    }
  }

  /**
   * The values the annotations that apply set, and those Linkerd's partials derive from them (image
   * references, ports to ignore, the log filter, resources and cores, ...).
   */
  private void fromOverrides(ConfigOverrides overrides, Map<String, JsonNode> local) {
    for (Map.Entry<LinkerdAnnotation, String> e : DIRECT.entrySet()) {
      String name = e.getValue();
      overrides.value(e.getKey().key()).ifPresent(v -> local.put(name, typed(global.get(name), v)));
    }
    resources(overrides, local);
    String image = text(local, "proxy.image");
    String ref = image + ":" + text(local, "proxy.version");
    local.put("proxy.imageRef", F.textNode(ref));
    // proxy-init and the validator ship in the proxy's image, unless the config names theirs
    if (config.proxyInit().image().isEmpty()) {
      local.put("proxyInit.imageRef", F.textNode(ref));
    }
    if (config.validator().image().isEmpty()) {
      local.put("validator.imageRef", F.textNode(ref));
    }
    List<String> inbound = new ArrayList<>();
    inbound.add(text(local, "proxy.ports.control"));
    inbound.add(text(local, "proxy.ports.admin"));
    String skipIn = overrides.value(LinkerdAnnotation.SKIP_INBOUND_PORTS.key()).orElse(null);
    if (skipIn != null) {
      if (!skipIn.isEmpty()) {
        inbound.add(skipIn);
      }
    } else {
      inbound.addAll(config.proxyInit().ignoreInboundPorts());
    }
    local.put("proxyInit.inboundPortsToIgnore", F.textNode(String.join(",", inbound)));
    overrides
        .value(LinkerdAnnotation.SKIP_OUTBOUND_PORTS.key())
        .ifPresent(v -> local.put("proxyInit.outboundPortsToIgnore", F.textNode(v)));
    overrides
        .value(LinkerdAnnotation.SKIP_SUBNETS.key())
        .ifPresent(v -> local.put("proxyInit.subnetsToIgnore", F.textNode(v)));

    String level = text(local, "proxy.logLevel");
    boolean filtered =
        level.endsWith(LOG_FILTER) || text(local, "proxy.logHTTPHeaders").equals("insecure");
    local.put("pod.proxyLog", F.textNode(filtered ? level : level + LOG_FILTER));
    local.put(
        "pod.proxyProfileSuffixes",
        F.textNode(
            bool(local, "proxy.enableExternalProfiles")
                ? "."
                : "svc." + text(local, "proxy.clusterDomain") + "."));
    int gid = Integer.parseInt(text(local, "proxy.gid"));
    local.put("pod.proxyRunAsGroup", F.textNode(gid >= 0 ? Integer.toString(gid) : ""));
    local.put("pod.proxyAdditionalEnv", additionalEnv(overrides));
    String debugVersion = text(local, "proxy.debugContainer.version");
    local.put(
        "pod.debugImageRef",
        F.textNode(
            text(local, "proxy.debugContainer.image")
                + ":"
                + (debugVersion.isEmpty() ? config.proxy().version() : debugVersion)));
    String debugPull = text(local, "proxy.debugContainer.imagePullPolicy");
    local.put(
        "pod.debugImagePullPolicy",
        F.textNode(debugPull.isEmpty() ? config.proxy().imagePullPolicy() : debugPull));
  }

  /**
   * As Linkerd's webhook does for a pod with no opaque-ports annotation of its own or its
   * namespace's: the default opaque ports the pod's containers expose become the pod's annotation,
   * and the proxy's.
   */
  private void defaultOpaquePorts(PodSpec spec, Map<String, JsonNode> local) {
    StringBuilder exposed = null;
    for (ContainerPort p : LinkerdConfig.containerPorts(spec)) {
      String port = p.getContainerPort().toString();
      if (defaultOpaquePorts.contains(port)) {
        exposed = exposed == null ? new StringBuilder(port) : exposed.append(',').append(port);
      }
    }
    if (exposed != null) {
      String ports = exposed.toString();
      local.put("pod.opaquePortsAnnotation", F.textNode(ports));
      local.put("proxy.opaquePorts", F.textNode(ports));
    }
  }

  /** Each resource annotation and the field of the container's resources it sets. */
  private static final String[][] RESOURCE_FIELDS = {
    {LinkerdAnnotation.PROXY_CPU_REQUEST.key(), "requests", "cpu"},
    {LinkerdAnnotation.PROXY_CPU_LIMIT.key(), "limits", "cpu"},
    {LinkerdAnnotation.PROXY_MEMORY_REQUEST.key(), "requests", "memory"},
    {LinkerdAnnotation.PROXY_MEMORY_LIMIT.key(), "limits", "memory"},
    {LinkerdAnnotation.PROXY_EPHEMERAL_STORAGE_REQUEST.key(), "requests", "ephemeral-storage"},
    {LinkerdAnnotation.PROXY_EPHEMERAL_STORAGE_LIMIT.key(), "limits", "ephemeral-storage"},
  };

  /** The resource annotations over the config's resources, field by field, as Linkerd's values. */
  private void resources(ConfigOverrides overrides, Map<String, JsonNode> local) {
    ObjectNode resources = null;
    for (String[] f : RESOURCE_FIELDS) {
      String v = overrides.value(f[0]).orElse(null);
      if (v == null) {
        continue;
      }
      if (resources == null) {
        JsonNode configured = global.get("proxy.resources");
        resources =
            configured != null && configured.isObject()
                ? ((ObjectNode) configured).deepCopy()
                : F.objectNode();
      }
      JsonNode part = resources.get(f[1]);
      ObjectNode section =
          part != null && part.isObject() ? (ObjectNode) part : resources.putObject(f[1]);
      section.put(f[2], v);
    }
    if (resources != null) {
      local.put("proxy.resources", resources);
    }
    // Linkerd's worker threads: at least the CPU request, at most the CPU limit, rounded up
    overrides
        .value(LinkerdAnnotation.PROXY_CPU_REQUEST.key())
        .flatMap(Quantities::parse)
        .ifPresent(
            q ->
                local.put(
                    "proxy.cores",
                    IntNode.valueOf((int) Math.max(1, Math.min(q.wholeUnitsRoundedUp(), 1024)))));
    long max =
        overrides
            .value(LinkerdAnnotation.PROXY_CPU_LIMIT.key())
            .flatMap(Quantities::parse)
            .map(Quantities.Quantity::wholeUnitsRoundedUp)
            .orElse(Long.parseLong(text(local, "proxy.coresMax")));
    local.put("pod.proxyCoresMax", F.textNode(max > 0 ? Long.toString(max) : ""));
  }

  /** The config's additional env, then the namespace's, then the pod's, merged by name. */
  private JsonNode additionalEnv(ConfigOverrides overrides) {
    Map<String, JsonNode> byName = new LinkedHashMap<>();
    JsonNode configured = global.get("proxy.additionalEnv");
    List<JsonNode> layers = new ArrayList<>();
    if (configured != null && configured.isArray()) {
      layers.add(configured);
    }
    for (ConfigOverride o : overrides.all(LinkerdAnnotation.PROXY_ADDITIONAL_ENV.key())) {
      try {
        layers.add(JSON.readTree(o.value()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    for (JsonNode layer : layers) {
      for (JsonNode e : layer) {
        byName.put(e.path("name").asText(), e);
      }
    }
    ArrayNode out = F.arrayNode();
    byName.values().forEach(out::add);
    return out;
  }

  /** The annotation's value in the type of the config's value it replaces. */
  private static JsonNode typed(JsonNode configured, String value) {
    if (configured != null && configured.isBoolean()) {
      return BooleanNode.valueOf(value.equals("true") || value.equals("enabled"));
    }
    if (configured != null && configured.isIntegralNumber()) {
      return IntNode.valueOf(Integer.parseInt(value));
    }
    return TextNode.valueOf(value);
  }

  private String text(Map<String, JsonNode> local, String name) {
    JsonNode v = local.get(name);
    if (v == null) {
      v = global.get(name);
    }
    return v == null ? "" : v.asText();
  }

  private boolean bool(Map<String, JsonNode> local, String name) {
    JsonNode v = local.get(name);
    if (v == null) {
      v = global.get(name);
    }
    return v != null && v.asBoolean();
  }
}
