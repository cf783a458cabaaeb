package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.meshinjector.engine.config.ConfigException;
import io.meshinjector.engine.config.ConfigSection;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.templates.internal.Template;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The renderer's configuration: the {@code proxy}, {@code proxyInit}, {@code validator}, {@code
 * proxyAwait} and {@code templates} sections, checked and typed, with the templates parsed once.
 *
 * <p>Every key of the first four sections is also a template value under its dotted name ({@code
 * ${proxy.ports.admin}}); {@link #values()} holds them plus the values derived here.
 *
 * <p>{@link #proxyContainerName()} is the proxy template's container name, checked at load to equal
 * the engine's {@code injection.proxyContainerName}.
 */
public record TemplateConfig(
    Proxy proxy,
    ProxyInit proxyInit,
    Validator validator,
    ProxyAwait proxyAwait,
    Templates templates,
    String injectorVersion,
    String proxyContainerName,
    Map<String, JsonNode> values,
    Map<String, PodValue> podValues) {

  public TemplateConfig {
    Objects.requireNonNull(proxy, "proxy");
    Objects.requireNonNull(proxyInit, "proxyInit");
    Objects.requireNonNull(validator, "validator");
    Objects.requireNonNull(proxyAwait, "proxyAwait");
    Objects.requireNonNull(templates, "templates");
    Objects.requireNonNull(injectorVersion, "injectorVersion");
    Objects.requireNonNull(proxyContainerName, "proxyContainerName");
    values = Map.copyOf(values);
    podValues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(podValues));
  }

  /** The values each render sets: {@link #RENDER_VALUES} and the config's pod values. */
  public Set<String> renderValues() {
    return renderValues(podValues);
  }

  private static Set<String> renderValues(Map<String, PodValue> podValues) {
    Set<String> out = new java.util.HashSet<>(RENDER_VALUES);
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

  public record Ports(int inbound, int outbound, int admin, int control) {}

  public record Proxy(
      String image,
      String version,
      String imagePullPolicy,
      int uid,
      Ports ports,
      String controlPlaneNamespace,
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
      int runAsUser,
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

  public record Validator(String image, int runAsUser, String connectAddr, String listenAddr) {}

  public record ProxyAwait(String command, String timeout) {}

  /** The parsed templates, built-in or replaced. */
  public record Templates(
      Template proxy,
      Template proxyInit,
      Template validator,
      Template volumes,
      Template metadata) {}

  private static final String RESOURCES = "/io/meshinjector/templates/";

  /** Where each mesh's built-in templates live, under {@link #RESOURCES}. */
  private static final Map<String, String> TEMPLATE_SETS = Map.of("linkerd", "", "istio", "istio/");

  private static final String BUILT_IN = " (built-in)";
  private static final String GATE_KEY = "injection.proxyContainerName";
  private static final String[] VALUE_SECTIONS = {"proxy", "proxyInit", "validator", "proxyAwait"};

  /** The built-in defaults. */
  public static TemplateConfig defaults() {
    return from(io.meshinjector.engine.config.ConfigLoader.defaults());
  }

  /**
   * Binds and checks the sections.
   *
   * @throws ConfigException naming the dotted key that is wrong or unknown
   */
  public static TemplateConfig from(MeshConfig config) {
    Proxy proxy = proxy(config.section("proxy"));
    ProxyInit proxyInit = proxyInit(config.section("proxyInit"));
    Validator validator = validator(config.section("validator"));
    ConfigSection await = config.section("proxyAwait");
    ProxyAwait proxyAwait = new ProxyAwait(await.text("command"), await.text("timeout"));
    await.done();

    ConfigSection t = config.section("templates");
    String set = TEMPLATE_SETS.get(config.tree().path("mesh").asText("linkerd"));
    if (set == null) {
      throw new ConfigException("config key 'mesh' must be one of " + TEMPLATE_SETS.keySet());
    }
    Templates templates =
        new Templates(
            template(t, "proxy", set + "proxy.yaml"),
            template(t, "proxyInit", set + "proxy-init.yaml"),
            template(t, "validator", set + "validator.yaml"),
            template(t, "volumes", set + "volumes.yaml"),
            template(t, "metadata", set + "metadata.yaml"));
    JsonNode extra = t.raw("values");
    if (extra == null || !extra.isObject()) {
      throw new ConfigException("config key 'templates.values' must be a map");
    }
    t.done();

    Map<String, JsonNode> values = new LinkedHashMap<>();
    for (String s : VALUE_SECTIONS) {
      Template.flatten(s, config.tree().get(s), values);
    }
    Template.flatten("values", extra, values);
    String version = bundledVersion();
    derived(values, proxy, proxyInit, validator, version);
    Map<String, PodValue> podValues = config.engine().injection().podValues();
    Set<String> render = renderValues(podValues);
    checkNames(templates, values, render);
    for (Map.Entry<String, PodValue> e : podValues.entrySet()) {
      checkDefault(e.getKey(), e.getValue(), values);
    }
    String proxyName = proxyContainerName(config, templates, values, render);
    return new TemplateConfig(
        proxy, proxyInit, validator, proxyAwait, templates, version, proxyName, values, podValues);
  }

  /**
   * The proxy template's container name, which must be the one the engine's gate looks for: the
   * gate knows an injected pod by it, so when they differ re-injection meets our own init container
   * and is reported as another mesh's pod instead of as already injected.
   */
  private static String proxyContainerName(
      MeshConfig config, Templates templates, Map<String, JsonNode> values, Set<String> render) {
    String gate = config.engine().injection().proxyContainerName();
    String proxy = staticName(templates.proxy(), values, render);
    if (proxy == null) {
      throw new ConfigException(
          "config key '"
              + key(templates.proxy())
              + "': the proxy container's name must be set and must not depend on the pod, since '"
              + GATE_KEY
              + "' ('"
              + gate
              + "') recognises injected pods by it");
    }
    if (!proxy.equals(gate)) {
      throw new ConfigException(
          "config keys '"
              + GATE_KEY
              + "' and '"
              + key(templates.proxy())
              + "' disagree on the proxy container's name: '"
              + GATE_KEY
              + "' is '"
              + gate
              + "' but '"
              + key(templates.proxy())
              + (templates.proxy().name().endsWith(BUILT_IN) ? "'" + BUILT_IN : "'")
              + " names it '"
              + proxy
              + "'; set both to one name, or re-injected pods are taken for another mesh's");
    }
    List<String> othersParts = config.engine().injection().otherMeshContainers();
    for (Template t : List.of(templates.proxyInit(), templates.validator())) {
      String name = staticName(t, values, render);
      if (proxy.equals(name)) {
        throw new ConfigException(
            "config key '"
                + key(t)
                + "': the container is named '"
                + proxy
                + "' like the proxy; a pod may not have two containers of one name");
      }
      // without the proxy beside it, such a container is another injector's leftover: the gate
      // must skip that pod, or the renderer, which never adds a name twice, leaves it uninjected
      // while the decision says injected
      if (name != null && !othersParts.contains(name)) {
        throw new ConfigException(
            "config key '"
                + key(t)
                + (t.name().endsWith(BUILT_IN) ? "'" + BUILT_IN : "'")
                + " names its container '"
                + name
                + "', which 'injection.otherMeshContainers' must list, so that a pod already"
                + " carrying one without the proxy is skipped");
      }
    }
    return proxy;
  }

  /** The container name a template renders for every pod, or null when it has none such. */
  private static String staticName(Template t, Map<String, JsonNode> values, Set<String> render) {
    JsonNode name = t.tree().get("name");
    if (name == null || !name.isTextual()) {
      return null;
    }
    Template only = Template.of(t.name(), JsonNodeFactory.instance.objectNode().set("name", name));
    if (only.names().stream().anyMatch(render::contains)) {
      return null;
    }
    JsonNode rendered = only.render(values::get).get("name");
    return rendered == null || !rendered.isTextual() || rendered.asText().isEmpty()
        ? null
        : rendered.asText();
  }

  private static String key(Template t) {
    return t.name().replace(BUILT_IN, "");
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

  // A replaced template that names a value nobody sets fails here, at start-up, not on a pod.
  private static void checkNames(
      Templates templates, Map<String, JsonNode> values, Set<String> render) {
    for (Template t :
        List.of(
            templates.proxy(),
            templates.proxyInit(),
            templates.validator(),
            templates.volumes(),
            templates.metadata())) {
      for (String n : t.names()) {
        if (!values.containsKey(n) && !isRenderValue(n, render)) {
          throw new ConfigException(
              "config key '"
                  + key(t)
                  + "': the template uses '${"
                  + n
                  + "}', which is no value; values are the keys of proxy, proxyInit, validator,"
                  + " proxyAwait, templates.values and "
                  + new TreeSet<>(render));
        }
      }
    }
  }

  /** A pod value's default may name the config's values and the render values, nothing else. */
  private static void checkDefault(String name, PodValue v, Map<String, JsonNode> values) {
    Template t;
    try {
      t = defaultTemplate(name, v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "config key 'injection.podValues." + name + ".default': " + e.getMessage(), e);
    }
    for (String n : t.names()) {
      if (!values.containsKey(n) && !RENDER_VALUES.contains(n) && !n.equals("from")) {
        throw new ConfigException(
            "config key 'injection.podValues."
                + name
                + "' uses '${"
                + n
                + "}', which is no value a default can use");
      }
    }
  }

  /** A pod value's default as a template of one entry, {@code value}. */
  static Template defaultTemplate(String name, PodValue v) {
    return Template.of(
        "injection.podValues." + name + ".default",
        JsonNodeFactory.instance
            .objectNode()
            .put("value", v.defaultValue())
            .put("whenSet", v.whenSet()));
  }

  /** A copy that writes {@code version} as the injector's version (golden files pin it). */
  public TemplateConfig withInjectorVersion(String version) {
    Map<String, JsonNode> v = new LinkedHashMap<>(values);
    v.put("injector.version", JsonNodeFactory.instance.textNode(version));
    return new TemplateConfig(
        proxy,
        proxyInit,
        validator,
        proxyAwait,
        templates,
        version,
        proxyContainerName,
        v,
        podValues);
  }

  private static void derived(
      Map<String, JsonNode> values,
      Proxy proxy,
      ProxyInit init,
      Validator validator,
      String version) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    values.put("proxy.imageRef", f.textNode(proxy.imageRef()));
    values.put(
        "proxyInit.imageRef", f.textNode(init.image().isEmpty() ? proxy.imageRef() : init.image()));
    values.put(
        "validator.imageRef",
        f.textNode(validator.image().isEmpty() ? proxy.imageRef() : validator.image()));
    // The proxy's own control and admin ports must never be redirected to the proxy itself.
    List<String> inbound = new ArrayList<>();
    inbound.add(Integer.toString(proxy.ports().control()));
    inbound.add(Integer.toString(proxy.ports().admin()));
    inbound.addAll(init.ignoreInboundPorts());
    values.put("proxyInit.inboundPortsToIgnore", f.textNode(String.join(",", inbound)));
    values.put(
        "proxyInit.outboundPortsToIgnore",
        f.textNode(String.join(",", init.ignoreOutboundPorts())));
    values.put("proxyInit.subnetsToIgnore", f.textNode(String.join(",", init.skipSubnets())));
    values.put("proxy.trustRootSha256", f.textNode(sha256(proxy.trustAnchorsPem())));
    values.put("injector.version", f.textNode(version));
  }

  /** Linkerd's {@code linkerd.io/trust-root-sha256}: the hex SHA-256 of the PEM text as given. */
  static String sha256(String pem) {
    if (pem.isEmpty()) {
      return "";
    }
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(pem.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Proxy proxy(ConfigSection s) {
    ConfigSection ports = s.section("ports");
    Ports p =
        new Ports(
            port(ports, "inbound"),
            port(ports, "outbound"),
            port(ports, "admin"),
            port(ports, "control"));
    ports.done();
    Proxy proxy =
        new Proxy(
            nonEmpty(s, "image"),
            nonEmpty(s, "version"),
            s.choice(
                "imagePullPolicy",
                Map.of("Always", "Always", "IfNotPresent", "IfNotPresent", "Never", "Never")),
            uid(s, "uid"),
            p,
            nonEmpty(s, "controlPlaneNamespace"),
            s.text("trustAnchorsPEM"),
            appProbes(s.section("appProbes")));
    for (String k :
        List.of(
            "logLevel",
            "logFormat",
            "clusterDomain",
            "trustDomain",
            "clusterNetworks",
            "defaultInboundPolicy",
            "opaquePorts")) {
      s.text(k);
    }
    if (s.integer("cores") < 1) {
      throw new ConfigException("config key '" + s.key("cores") + "' must be at least 1");
    }
    JsonNode resources = s.raw("resources");
    if (resources == null || !resources.isObject()) {
      throw new ConfigException("config key '" + s.key("resources") + "' must be a map");
    }
    s.done();
    return proxy;
  }

  private static AppProbes appProbes(ConfigSection s) {
    AppProbes a =
        new AppProbes(
            s.bool("rewrite"), s.text("podValue"), s.text("probePath"), s.text("hookPath"));
    if (!a.probePath().contains("{container}") || !a.probePath().contains("{probe}")) {
      throw new ConfigException(
          "config key '" + s.key("probePath") + "' must contain {container} and {probe}");
    }
    if (!a.hookPath().isEmpty()
        && (!a.hookPath().contains("{container}") || !a.hookPath().contains("{hook}"))) {
      throw new ConfigException(
          "config key '" + s.key("hookPath") + "' must be empty or contain {container} and {hook}");
    }
    s.done();
    return a;
  }

  private static ProxyInit proxyInit(ConfigSection s) {
    ConfigSection fw = s.section("firewall");
    Map<IptablesMode, Firewall> firewall = new EnumMap<>(IptablesMode.class);
    for (IptablesMode mode : IptablesMode.values()) {
      ConfigSection m = fw.section(mode.id());
      firewall.put(mode, new Firewall(nonEmpty(m, "bin"), nonEmpty(m, "saveBin")));
      m.done();
    }
    fw.done();
    ProxyInit init =
        new ProxyInit(
            s.text("image"),
            uid(s, "runAsUser"),
            s.strings("ignoreInboundPorts"),
            s.strings("ignoreOutboundPorts"),
            s.strings("skipSubnets"),
            firewall);
    nonEmpty(s, "command");
    s.bool("ipv6");
    s.done();
    return init;
  }

  private static Validator validator(ConfigSection s) {
    Validator v =
        new Validator(
            s.text("image"),
            uid(s, "runAsUser"),
            nonEmpty(s, "connectAddr"),
            nonEmpty(s, "listenAddr"));
    for (String k : List.of("command", "timeout", "logLevel", "logFormat")) {
      nonEmpty(s, k);
    }
    s.done();
    return v;
  }

  private static Template template(ConfigSection s, String key, String resource) {
    JsonNode given = s.raw(key);
    String name = s.key(key);
    if (given == null || given.isNull() || (given.isTextual() && given.asText().isBlank())) {
      return Template.parse(name + BUILT_IN, readResource(resource));
    }
    try {
      return given.isTextual() ? Template.parse(name, given.asText()) : Template.of(name, given);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("config key '" + name + "': " + e.getMessage(), e);
    }
  }

  private static String nonEmpty(ConfigSection s, String key) {
    String v = s.text(key);
    if (v.isBlank()) {
      throw new ConfigException("config key '" + s.key(key) + "' must not be empty");
    }
    return v;
  }

  private static int port(ConfigSection s, String key) {
    int v = s.integer(key);
    if (v < 1 || v > 65535) {
      throw new ConfigException("config key '" + s.key(key) + "' must be a port (1-65535)");
    }
    return v;
  }

  // Pod Security restricted and the init container's non-root rule both refuse uid 0.
  private static int uid(ConfigSection s, String key) {
    int v = s.integer(key);
    if (v < 1) {
      throw new ConfigException("config key '" + s.key(key) + "' must be a non-root uid (>= 1)");
    }
    return v;
  }

  private static String readResource(String name) {
    try (InputStream in = TemplateConfig.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCES + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String bundledVersion() {
    try (InputStream in =
        TemplateConfig.class.getResourceAsStream(RESOURCES + "version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      String v = p.getProperty("version", "");
      return v.isEmpty() || v.startsWith("${") ? "dev" : v;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
