package io.meshinjector.engine.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.engine.decision.PathOption;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads the configuration: the embedded {@code defaults.yaml} (the one place every default lives),
 * overlaid with the user's YAML. Maps merge key by key; lists and scalars replace. Keys that the
 * defaults do not have are refused, naming the key.
 */
public final class ConfigLoader {
  /**
   * The classpath resource holding every default; the chart's values.yaml is checked against it.
   */
  public static final String DEFAULTS_RESOURCE = "/io/meshinjector/config/defaults.yaml";

  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder()
                      .maxNestingDepth(64)
                      .maxStringLength(1 << 20)
                      .build())
              .build());

  /**
   * Maps whose keys are the user's (selectors, labels): a user value replaces the default whole
   * instead of merging into it. Maps that are empty in the defaults are open too.
   */
  static final java.util.Set<String> OPEN_MAPS =
      java.util.Set.of("capabilities.cniDaemonSet.podSelector");

  /**
   * Maps that take any key, merged key by key: a mesh flavour fills them, and the user may still
   * add entries of their own beside the flavour's.
   */
  static final java.util.Set<String> OPEN_MERGED_MAPS =
      java.util.Set.of(
          "injection.optOutAnnotations",
          "injection.podValues",
          "templates.values",
          "explain.pathNotes");

  /** The meshes a config may choose; each but the first has a defaults overlay. */
  public static final List<String> MESHES = List.of("linkerd", "istio");

  private static final String MESH_RESOURCE = "/io/meshinjector/config/mesh-%s.yaml";

  /** In the order the error message lists them, the default first; before DEFAULTS uses it. */
  private static final Map<String, RunToCompletion> RUN_TO_COMPLETION = runToCompletionValues();

  private static final MeshConfig DEFAULTS = build(readDefaults());

  private ConfigLoader() {}

  public static MeshConfig defaults() {
    return DEFAULTS;
  }

  /**
   * Overlays the text of a config file on the defaults; errors name the file.
   *
   * @param source where the text came from, e.g. the file's path
   */
  public static MeshConfig fromYaml(String source, String yaml) {
    try {
      return fromYaml(yaml);
    } catch (ConfigException e) {
      throw new ConfigException(source + ": " + e.getMessage(), e);
    }
  }

  /** Overlays {@code yaml} on the defaults; an empty document gives the defaults. */
  public static MeshConfig fromYaml(String yaml) {
    JsonNode user;
    try {
      user = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new ConfigException("config is not valid YAML: " + e.getOriginalMessage(), e);
    }
    if (user == null || user.isMissingNode() || user.isNull()) {
      return DEFAULTS;
    }
    if (!user.isObject()) {
      throw new ConfigException("config must be a map of sections, not " + user.getNodeType());
    }
    ObjectNode merged = readDefaults();
    String mesh = mesh(user, merged);
    if (!mesh.equals(MESHES.get(0))) {
      checkKnownAndMerge(merged, readResource(String.format(MESH_RESOURCE, mesh)), "");
    }
    checkKnownAndMerge(merged, (ObjectNode) user, "");
    return build(merged);
  }

  /** The user's {@code mesh}, else the default; the flavour's defaults depend on it. */
  private static String mesh(JsonNode user, JsonNode defaults) {
    JsonNode m = user.get("mesh");
    if (m == null || m.isNull()) {
      return defaults.get("mesh").asText();
    }
    if (!m.isTextual() || !MESHES.contains(m.asText())) {
      throw new ConfigException(
          "config key 'mesh' has invalid value '" + m.asText() + "': allowed " + MESHES);
    }
    return m.asText();
  }

  private static ObjectNode readDefaults() {
    return readResource(DEFAULTS_RESOURCE);
  }

  private static ObjectNode readResource(String resource) {
    try (InputStream in = ConfigLoader.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return (ObjectNode) YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Merges {@code user} into {@code base}. A key unknown to a map that has fixed keys in the
   * defaults is an error; maps that are empty in the defaults (selectors, labels, extra values)
   * take any key.
   */
  private static void checkKnownAndMerge(ObjectNode base, ObjectNode user, String path) {
    boolean openMap = base.isEmpty() || OPEN_MERGED_MAPS.contains(path);
    Iterator<Map.Entry<String, JsonNode>> it = user.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
      JsonNode current = base.get(e.getKey());
      if (current == null && !openMap) {
        List<String> known = new ArrayList<>();
        base.fieldNames().forEachRemaining(known::add);
        throw new ConfigException(
            "config key '" + key + "' is not known; known keys here: " + known);
      }
      if (current != null && current.isObject() && OPEN_MAPS.contains(key)) {
        if (!e.getValue().isObject()) {
          throw new ConfigException("config key '" + key + "' must be a map");
        }
        base.set(e.getKey(), e.getValue());
      } else if (current != null && current.isObject() && e.getValue().isObject()) {
        checkKnownAndMerge((ObjectNode) current, (ObjectNode) e.getValue(), key);
      } else if (current != null
          && current.isObject()
          && !e.getValue().isNull()
          && !e.getValue().isObject()) {
        throw new ConfigException("config key '" + key + "' must be a map");
      } else {
        base.set(e.getKey(), e.getValue());
      }
    }
  }

  private static MeshConfig build(ObjectNode tree) {
    ConfigSection root = new ConfigSection(tree, "");
    Mesh mesh = root.choice("mesh", Map.of("linkerd", Mesh.LINKERD, "istio", Mesh.ISTIO));
    EngineConfig engine;
    try {
      engine =
          new EngineConfig(
              mesh,
              injection(root.section("injection")),
              policy(root.section("policy")),
              capabilities(root.section("capabilities"), proxyInitIpv6(tree)),
              explain(root.section("explain")),
              pathNotes(root.section("explain")));
    } catch (ConfigException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage(), e);
    }
    if (!mesh.nativeNftables()
        && engine.policy().preference().stream().allMatch(p -> p.mode() == IptablesMode.NFTABLES)) {
      throw new ConfigException(
          "config key 'policy.preference' offers only init/nftables, which mesh "
              + tree.path("mesh").asText()
              + " cannot render (Linkerd's proxy-init has no native nftables mode): add init/nft,"
              + " init/legacy or cni");
    }
    return new MeshConfig(tree, engine);
  }

  private static InjectionConfig injection(ConfigSection s) {
    InjectionConfig c =
        new InjectionConfig(
            new java.util.LinkedHashSet<>(s.strings("excludedNamespaces")),
            s.text("proxyContainerName"),
            s.strings("otherMeshContainers"),
            s.stringMap("optOutAnnotations"),
            s.strings("refusedAnnotations"),
            podValues(s.section("podValues")),
            awaitField(s.section("proxyAwaitFrom")),
            s.choice(
                "meshAnnotations",
                Map.of(
                    "linkerd",
                    InjectionConfig.MeshAnnotations.LINKERD,
                    "none",
                    InjectionConfig.MeshAnnotations.NONE)),
            s.choice("imageAndUserOverrides", Map.of("allow", false, "refuse", true)),
            s.strings("imageAndUserAnnotations"),
            s.choice(
                "meshNamespaceLabels",
                Map.of(
                    "istio",
                    InjectionConfig.MeshNamespaceLabels.ISTIO,
                    "none",
                    InjectionConfig.MeshNamespaceLabels.NONE)));
    s.done();
    return c;
  }

  private static InjectionConfig.AwaitField awaitField(ConfigSection s) {
    String annotation = s.text("annotation");
    String field = s.text("field");
    s.done();
    if (annotation.isEmpty() && field.isEmpty()) {
      return null;
    }
    try {
      return new InjectionConfig.AwaitField(annotation, field);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("config key 'injection.proxyAwaitFrom': " + e.getMessage(), e);
    }
  }

  private static Map<String, PodValue> podValues(ConfigSection s) {
    Map<String, PodValue> out = new LinkedHashMap<>();
    Iterator<String> names = s.names();
    while (names.hasNext()) {
      String name = names.next();
      ConfigSection v = s.section(name);
      List<PodValue.Source> from = new ArrayList<>();
      for (String f : v.strings("from")) {
        try {
          from.add(PodValue.Source.parse(f));
        } catch (IllegalArgumentException e) {
          throw new ConfigException("config key '" + v.key("from") + "': " + e.getMessage());
        }
      }
      boolean object =
          v.has("format")
              && v.choice("format", Map.of("text", Boolean.FALSE, "object", Boolean.TRUE));
      v.skip("format");
      java.util.regex.Pattern pattern;
      try {
        pattern =
            java.util.regex.Pattern.compile(
                object && !v.has("pattern") ? "(?s).*" : v.text("pattern"));
      } catch (java.util.regex.PatternSyntaxException e) {
        throw new ConfigException(
            "config key '" + v.key("pattern") + "' is no regular expression: " + e.getMessage());
      }
      String whenSet = v.has("whenSet") ? v.text("whenSet") : "$" + "{from}";
      v.skip("whenSet");
      v.skip("pattern");
      List<String> refusedFields = v.has("refusedFields") ? v.strings("refusedFields") : List.of();
      v.skip("refusedFields");
      if (!object && !refusedFields.isEmpty()) {
        throw new ConfigException(
            "config key '" + v.key("refusedFields") + "' needs format: object");
      }
      out.put(name, new PodValue(from, v.text("default"), whenSet, pattern, object, refusedFields));
      v.done();
    }
    s.done();
    return out;
  }

  private static Map<String, RunToCompletion> runToCompletionValues() {
    Map<String, RunToCompletion> m = new LinkedHashMap<>();
    for (RunToCompletion r : RunToCompletion.values()) {
      m.put(r.id(), r);
    }
    return Collections.unmodifiableMap(m);
  }

  private static PolicyConfig policy(ConfigSection s) {
    List<PathOption> preference = new ArrayList<>();
    for (String p : s.strings("preference")) {
      try {
        preference.add(PathOption.parse(p));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("config key '" + s.key("preference") + "': " + e.getMessage());
      }
    }
    PolicyConfig c =
        new PolicyConfig(
            preference,
            s.choice(
                "mixedNodes",
                Map.of("constrain", MixedNodes.CONSTRAIN, "reject", MixedNodes.REJECT)),
            s.choice(
                "noViablePath", Map.of("reject", NoViablePath.REJECT, "skip", NoViablePath.SKIP)),
            s.choice("pinCni", Map.of("always", PinCni.ALWAYS, "when-mixed", PinCni.WHEN_MIXED)),
            s.bool("publishLabels"),
            s.choice("runToCompletion", RUN_TO_COMPLETION));
    s.done();
    return c;
  }

  /**
   * {@code proxyInit.ipv6}: the templates own the section and check it; the engine reads this one
   * value, which says whether a node no source knows the pod CIDRs of gives its pods IPv6.
   */
  private static boolean proxyInitIpv6(ObjectNode tree) {
    JsonNode v = tree.path("proxyInit").path("ipv6");
    if (!v.isMissingNode() && !v.isBoolean()) {
      throw new ConfigException("config key 'proxyInit.ipv6' must be true or false, got " + v);
    }
    return v.asBoolean(false);
  }

  private static CapabilitiesConfig capabilities(ConfigSection s, boolean ipv6Pods) {
    ConfigSection assume = s.section("assumeUnknown");
    AssumeUnknown assumeUnknown =
        new AssumeUnknown(
            assume.choice("iptables", Map.of("viable", true, "not-viable", false)),
            assume.choice("cni", Map.of("ready", true, "not-ready", false)),
            assume.choice("nativeSidecar", Map.of("supported", true, "unsupported", false)),
            ipv6Pods);
    assume.done();
    ConfigSection ds = s.section("cniDaemonSet");
    CniDaemonSet cniDaemonSet = new CniDaemonSet(ds.text("namespace"), ds.stringMap("podSelector"));
    ds.done();
    CapabilitiesConfig c =
        new CapabilitiesConfig(
            s.duration("probeTtl"),
            s.list("overrides", ConfigLoader::override),
            assumeUnknown,
            cniDaemonSet,
            s.choice(
                "plainBackend", Map.of("nft", IptablesMode.NFT, "legacy", IptablesMode.LEGACY)));
    s.done();
    return c;
  }

  private static CapabilityOverride override(ConfigSection s) {
    Map<String, String> selector = s.has("nodeSelector") ? s.stringMap("nodeSelector") : Map.of();
    if (!s.has("nodeSelector")) {
      s.skip("nodeSelector");
    }
    Map<CapabilityKey, Verdict> set = new EnumMap<>(CapabilityKey.class);
    Map<String, String> raw = new LinkedHashMap<>(s.stringMap("set"));
    if (raw.isEmpty()) {
      throw new ConfigException(
          "config key '" + s.key("set") + "' must set at least one capability");
    }
    raw.forEach(
        (k, v) -> {
          try {
            CapabilityKey key = CapabilityKey.parse(k);
            set.put(key, key.parseVerdict(v));
          } catch (IllegalArgumentException e) {
            throw new ConfigException("config key '" + s.key("set") + "': " + e.getMessage());
          }
        });
    return new CapabilityOverride(selector, set);
  }

  private static int explain(ConfigSection s) {
    int max = s.integer("maxCandidateNodes");
    s.skip("pathNotes");
    s.done();
    return max;
  }

  private static Map<String, String> pathNotes(ConfigSection s) {
    Map<String, String> notes = s.stringMap("pathNotes");
    for (String path : notes.keySet()) {
      try {
        PathOption.parse(path);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("config key '" + s.key("pathNotes") + "': " + e.getMessage());
      }
    }
    return notes;
  }
}
