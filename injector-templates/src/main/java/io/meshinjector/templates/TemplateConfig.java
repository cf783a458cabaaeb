package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.templates.internal.Template;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The renderer's configuration: the {@code proxy}, {@code proxyInit}, {@code validator}, {@code
 * proxyAwait} and {@code templates} sections, checked, and typed where code reads them, with the
 * templates parsed once.
 *
 * <p>Every key of the first four sections is also a template value under its dotted name ({@code
 * ${proxy.ports.admin}}); {@link #values()} holds them plus the values derived from them.
 *
 * <p>{@link #proxyContainerName()} is the proxy template's container name, checked at load to equal
 * the engine's {@code injection.proxyContainerName}. {@link #linkerdAnnotations()}: whether
 * Linkerd's per-workload annotations apply ({@code injection.meshAnnotations: linkerd}). {@link
 * #configDigest()}: the {@link ConfigDigest} of the templates and values, written on every injected
 * pod. {@link #revision()}: this release's revision, recorded on every injected pod ({@code
 * mesh-injector.io/revision}). {@link #ipv6Values()}: the template values that a pod whose decision
 * redirects IPv6 too renders with instead of the config's ({@code templates.ipv6Values} laid over
 * {@code templates.values}), by dotted name; only those that differ.
 */
public record TemplateConfig(
    Proxy proxy,
    ProxyInit proxyInit,
    Validator validator,
    Templates templates,
    String proxyContainerName,
    Map<String, JsonNode> values,
    Map<String, PodValue> podValues,
    boolean linkerdAnnotations,
    String configDigest,
    String revision,
    Map<String, JsonNode> ipv6Values) {

  public TemplateConfig {
    Objects.requireNonNull(proxy, "proxy");
    Objects.requireNonNull(proxyInit, "proxyInit");
    Objects.requireNonNull(validator, "validator");
    Objects.requireNonNull(templates, "templates");
    Objects.requireNonNull(proxyContainerName, "proxyContainerName");
    Objects.requireNonNull(configDigest, "configDigest");
    Objects.requireNonNull(revision, "revision");
    values = Map.copyOf(values);
    ipv6Values = Map.copyOf(ipv6Values);
    podValues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(podValues));
  }

  /** The values each render sets: {@link #RENDER_VALUES} and the config's pod values. */
  public Set<String> renderValues() {
    return renderValues(podValues);
  }

  private static Set<String> renderValues(Map<String, PodValue> podValues) {
    Set<String> out = new java.util.HashSet<>(RENDER_VALUES);
    out.addAll(ProxyValues.NAMES);
    podValues.keySet().forEach(n -> out.add(POD_VALUE + n));
    return out;
  }

  /** The pod value that switches the app probe rewrite per pod, when the config names one. */
  String appProbesPodValue() {
    String n = proxy.appProbes().podValue();
    if (!n.isEmpty() && !podValues.containsKey(n)) {
      throw new ConfigException(
          "config key 'proxy.appProbes.podValue' names '"
              + n
              + "', which is no pod value (injection.podValues)");
    }
    return n;
  }

  /**
   * Whether a render sets the value: one of {@code render}, or a key inside one (an object pod
   * value's {@code pod.value.proxyConfig.proxyMetadata}), which is empty where the pod has none.
   */
  static boolean isRenderValue(String name, Set<String> render) {
    if (render.contains(name)) {
      return true;
    }
    for (int dot = name.indexOf('.', POD_VALUE.length());
        dot > 0;
        dot = name.indexOf('.', dot + 1)) {
      if (render.contains(name.substring(0, dot))) {
        return true;
      }
    }
    return false;
  }

  /** The prefix of the pod values' names in templates. */
  public static final String POD_VALUE = "pod.value.";

  public record Ports(int admin, int control) {}

  public record Proxy(
      String image,
      String version,
      String imagePullPolicy,
      Ports ports,
      String trustAnchorsPem,
      AppProbes appProbes) {
    public String imageRef() {
      return image + ":" + version;
    }
  }

  /**
   * Whether and how the app's probes are pointed at the proxy's agent ({@code proxy.appProbes}).
   *
   * @param podValue the pod value that turns it on or off for one pod; empty for none
   * @param probePath with {@code {container}} and {@code {probe}} (live, ready, startup)
   * @param hookPath with {@code {container}} and {@code {hook}} (prestop, poststart); empty leaves
   *     lifecycle hooks alone
   */
  public record AppProbes(boolean rewrite, String podValue, String probePath, String hookPath) {}

  public record Firewall(String bin, String saveBin) {}

  public record ProxyInit(
      String image,
      List<String> ignoreInboundPorts,
      List<String> ignoreOutboundPorts,
      List<String> skipSubnets,
      Map<IptablesMode, Firewall> firewall) {
    public ProxyInit {
      ignoreInboundPorts = List.copyOf(ignoreInboundPorts);
      ignoreOutboundPorts = List.copyOf(ignoreOutboundPorts);
      skipSubnets = List.copyOf(skipSubnets);
      firewall = Map.copyOf(firewall);
    }
  }

  public record Validator(String image) {}

  /**
   * The parsed templates, built-in or replaced.
   *
   * @param debug the debug sidecar a pod may ask for (Linkerd's); null where the mesh has none
   */
  public record Templates(
      Template proxy,
      Template proxyInit,
      Template validator,
      Template volumes,
      Template metadata,
      Template debug) {}

  /**
   * Binds and checks the sections.
   *
   * @throws ConfigException naming the dotted key that is wrong or unknown
   */
  public static TemplateConfig from(MeshConfig config) {
    Proxy proxy = ConfigSections.proxy(config.section("proxy"));
    ProxyInit proxyInit = ConfigSections.proxyInit(config.section("proxyInit"));
    Validator validator = ConfigSections.validator(config.section("validator"));
    ConfigSections.proxyAwait(config.section("proxyAwait"));

    ConfigSection t = config.section("templates");
    Templates templates =
        TemplateSection.templates(t, config.tree().path("mesh").asText("linkerd"));
    JsonNode extra = TemplateSection.values(t);
    JsonNode ipv6Extra = TemplateSection.ipv6Values(t, extra);
    t.done();

    String version = ConfigValues.bundledVersion();
    Map<String, JsonNode> values =
        ConfigValues.of(config, extra, proxy, proxyInit, validator, version);
    Map<String, JsonNode> ipv6Values = ConfigValues.ipv6(extra, ipv6Extra);
    Map<String, PodValue> podValues = config.engine().injection().podValues();
    Set<String> render = renderValues(podValues);
    // a template may name a value that only the pods of an IPv6 plan have
    Map<String, JsonNode> known = new java.util.HashMap<>(values);
    known.putAll(ipv6Values);
    TemplateChecks.checkNames(templates, known, render);
    for (Map.Entry<String, PodValue> e : podValues.entrySet()) {
      TemplateChecks.checkDefault(e.getKey(), e.getValue(), known);
    }
    String proxyName = TemplateChecks.proxyContainerName(config, templates, values, render);
    boolean linkerd =
        config.engine().injection().meshAnnotations()
            == io.meshinjector.engine.config.InjectionConfig.MeshAnnotations.LINKERD;
    return new TemplateConfig(
        proxy,
        proxyInit,
        validator,
        templates,
        proxyName,
        values,
        podValues,
        linkerd,
        ConfigDigest.of(
            templates,
            values,
            ipv6Values,
            config.tree().path("injection").path("podValues"),
            linkerd),
        io.meshinjector.engine.revisions.RevisionConfig.from(config).name(),
        ipv6Values);
  }

  /** The values each render sets from the pod and the decision. */
  public static final Set<String> RENDER_VALUES =
      Set.of(
          "pod.namespace",
          "pod.inboundPorts",
          "workload.kind",
          "workload.name",
          "decision.summary",
          "decision.redirect",
          "decision.iptablesMode",
          "decision.init",
          "decision.cni",
          "decision.nativeSidecar",
          "decision.proxyAwait",
          "decision.ipv6",
          "proxyInit.firewallBin",
          "proxyInit.firewallSaveBin",
          "pod.containerNames",
          "pod.defaultContainer",
          "pod.containerPorts",
          "workload.apiVersion",
          "owner.kind",
          "owner.name",
          "owner.labelName",
          "owner.apiVersion",
          "pod.appProbers",
          "injected.initContainers",
          "injected.containers",
          "injected.volumes");

  /** A pod value's default as a template of one entry, {@code value}. */
  static Template defaultTemplate(String name, PodValue v) {
    return Template.of(
        "injection.podValues." + name + ".default",
        JsonNodeFactory.instance
            .objectNode()
            .put("value", v.defaultValue())
            .put("whenSet", v.whenSet()));
  }
}
