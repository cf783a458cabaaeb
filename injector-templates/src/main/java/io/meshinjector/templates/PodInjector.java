package io.meshinjector.templates;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.templates.TemplateConfig.Firewall;
import io.meshinjector.templates.internal.AppProbeRewrite;
import io.meshinjector.templates.internal.InboundPorts;
import io.meshinjector.templates.internal.NodeAffinities;
import io.meshinjector.templates.internal.ShallowCopy;
import io.meshinjector.templates.internal.Template;
import io.meshinjector.templates.internal.TemplateException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a pod and the engine's {@link Decision} into the injected pod. Pure and thread-safe; the
 * templates were parsed when the {@link TemplateConfig} was built.
 */
public final class PodInjector {
  // Blackbird: generated accessors instead of reflection over the fabric8 model, the most common
  // top frame of an admission under load
  static final ObjectMapper JSON = new ObjectMapper().registerModule(new BlackbirdModule());
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String FROM = "$" + "{from}";

  /**
   * Written on every pod this injector injects: the names of all its containers and init containers
   * once injected, comma-separated. A container missing from it was added after the injection (by a
   * later mutating webhook), and the chart's matchCondition sends only such pods back on
   * reinvocation.
   */
  public static final String INJECTED_CONTAINERS = "mesh-injector.io/injected-containers";

  private final TemplateConfig config;
  private final String proxyName;
  private static final int MAX_CACHED = 512;
  private final Map<Template, List<String>> renderNames = new ConcurrentHashMap<>();
  private final Map<Template, Map<List<JsonNode>, Rendered>> cache = new ConcurrentHashMap<>();

  private final Set<String> renderValues;
  private final Map<String, Template> podValueDefaults = new LinkedHashMap<>();
  private final AppProbeRewrite appProbes;
  private final String appProbesPodValue;

  public PodInjector(TemplateConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.proxyName = config.proxyContainerName();
    this.renderValues = Set.copyOf(config.renderValues());
    config
        .podValues()
        .forEach((n, v) -> podValueDefaults.put(n, TemplateConfig.defaultTemplate(n, v)));
    TemplateConfig.AppProbes a = config.proxy().appProbes();
    this.appProbes =
        new AppProbeRewrite(
            config.proxy().ports().control(), a.probePath(), a.hookPath(), proxyName);
    this.appProbesPodValue = config.appProbesPodValue();
  }

  public TemplateConfig config() {
    return config;
  }

  /** The proxy container's name (the proxy template's {@code name}). */
  public String proxyContainerName() {
    return proxyName;
  }

  /** Whether the pod already has the proxy, as a container or an init container. */
  public boolean alreadyInjected(Pod pod) {
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return false;
    }
    return hasName(spec.getContainers(), proxyName) || hasName(spec.getInitContainers(), proxyName);
  }

  /**
   * The injected pod, as a new object; {@code original} is not touched. When the decision does not
   * inject, or the pod already has a container named like the proxy or the redirect container, the
   * result equals the original.
   *
   * <p>The result shares what it does not change with {@code original} (the app's containers, its
   * volumes, its status) and with the rendered templates it caches: read it, serialise it, diff it,
   * but do not change it in place. Copying all of it cost more than half the bytes an admission
   * allocated.
   *
   * @throws TemplateException when a replaced template produces something that is no container
   */
  public Pod render(Pod original, Decision decision) {
    if (!decision.inject() || alreadyInjected(original)) {
      return ShallowCopy.of(original);
    }
    Plan plan = decision.plan().orElseThrow();
    // A null in a list render reads (a pod the API server refuses, but the CLI may be given one)
    // becomes an empty object in a builder's copy, which render has always read from.
    Pod source = holdsNulls(original) ? new PodBuilder(original).build() : original;
    // only the objects render sets properties on are new; what they hold is shared until replaced
    Pod pod = ShallowCopy.of(source);
    pod.setMetadata(
        source.getMetadata() == null ? new ObjectMeta() : ShallowCopy.of(source.getMetadata()));
    pod.setSpec(source.getSpec() == null ? new PodSpec() : ShallowCopy.of(source.getSpec()));
    PodSpec spec = pod.getSpec();
    Template.Values values = values(pod, decision, plan);

    Container proxy = container(config.templates().proxy(), values);
    boolean native_ = plan.proxy() == ProxyPlacement.NATIVE_SIDECAR;
    proxy.setRestartPolicy(native_ ? "Always" : null);
    Container redirect =
        container(
            plan.path().redirect() == Redirect.INIT
                ? config.templates().proxyInit()
                : config.templates().validator(),
            values);
    if (Objects.equals(proxy.getName(), redirect.getName())) {
      throw new TemplateException(
          "the proxy and the redirect container are both named '" + proxy.getName() + "'");
    }
    // The API server refuses a pod with two containers of one name, across containers, init and
    // ephemeral containers. A pod that already has one of ours by name (another mesh's
    // linkerd-init, a half-injected pod) is left as it is, whatever the caller decided.
    if (hasName(spec, proxy.getName()) || hasName(spec, redirect.getName())) {
      return ShallowCopy.of(original);
    }

    List<Container> inits = new ArrayList<>(orEmpty(spec.getInitContainers()));
    List<Container> containers = new ArrayList<>(orEmpty(spec.getContainers()));
    if (native_) {
      // The redirect must be in place before the proxy starts, and both before any app init
      // container, so that those already talk through the mesh.
      inits.add(0, redirect);
      inits.add(1, proxy);
    } else {
      // Regular proxy: app init containers run before it exists, so they keep their own network
      // and the redirect comes last; the proxy goes first so its postStart hook holds the app.
      inits.add(redirect);
      containers.add(0, proxy);
    }
    spec.setInitContainers(inits);
    spec.setContainers(containers);

    Rendered volumes = rendered(config.templates().volumes(), values);
    addVolumes(spec, volumes);

    // What was injected, for a mesh that records it on the pod (Istio's sidecar.istio.io/status).
    Map<String, JsonNode> injected = new HashMap<>(4);
    injected.put(
        "injected.initContainers", names(native_ ? List.of(redirect, proxy) : List.of(redirect)));
    injected.put("injected.containers", names(native_ ? List.of() : List.of(proxy)));
    ArrayNode volumeNames = F.arrayNode();
    volumes.volumes().forEach(v -> volumeNames.add(v.getName()));
    injected.put("injected.volumes", volumeNames.isEmpty() ? F.nullNode() : volumeNames);
    Template.Values withInjected =
        name -> {
          JsonNode v = injected.get(name);
          return v != null ? v : values.get(name);
        };
    applyMetadata(pod.getMetadata(), rendered(config.templates().metadata(), withInjected).tree());
    pod.getMetadata().getAnnotations().put(INJECTED_CONTAINERS, containerList(spec));

    if (plan.nodeConstraint() != null) {
      // require() writes into the affinity's terms, which are the original's
      if (spec.getAffinity() != null) {
        spec.setAffinity(new AffinityBuilder(spec.getAffinity()).build());
      }
      NodeAffinities.require(spec, plan.nodeConstraint());
    }
    return pod;
  }

  /**
   * A pod this injector injected, after a later mutating webhook added containers to it: the added
   * ones moved to where the injected layout puts app containers, and {@link #INJECTED_CONTAINERS}
   * updated. Returns {@code original} itself when there is nothing to do (no proxy, no annotation,
   * or every container listed), so a second call on the same pod changes nothing.
   *
   * <p>Only the layout is completed. Values the proxy's template derives from the app containers
   * when it is rendered (the inbound ports, the app probe rewrite of a flavour that turns it on)
   * describe the containers of the first injection.
   */
  public Pod complete(Pod original) {
    ObjectMeta meta = original.getMetadata();
    PodSpec spec = original.getSpec();
    String listed =
        meta == null || meta.getAnnotations() == null
            ? null
            : meta.getAnnotations().get(INJECTED_CONTAINERS);
    if (listed == null || spec == null || !alreadyInjected(original)) {
      return original;
    }
    Set<String> known = new HashSet<>(Arrays.asList(listed.split(",")));
    List<Container> inits = new ArrayList<>(orEmpty(spec.getInitContainers()));
    List<Container> containers = new ArrayList<>(orEmpty(spec.getContainers()));
    if (known.containsAll(nameList(inits)) && known.containsAll(nameList(containers))) {
      return original;
    }
    int proxyAt = indexOf(inits, proxyName);
    if (proxyAt >= 0) {
      // native sidecar: app init containers start after the redirect and the proxy, so that
      // they already talk through the mesh
      List<Container> early = new ArrayList<>();
      for (Iterator<Container> it = inits.subList(0, proxyAt).iterator(); it.hasNext(); ) {
        Container c = it.next();
        if (c != null && !known.contains(c.getName())) {
          early.add(c);
          it.remove();
        }
      }
      inits.addAll(indexOf(inits, proxyName) + 1, early);
    } else {
      // regular proxy: first among the containers, so its postStart hook holds every app
      // container; and the redirect last among the init containers, after the app's own
      containers.add(0, containers.remove(indexOf(containers, proxyName)));
      int redirectAt = -1;
      for (int i = 0; i < inits.size(); i++) {
        if (inits.get(i) != null && known.contains(inits.get(i).getName())) {
          redirectAt = i;
        }
      }
      if (redirectAt >= 0) {
        List<Container> late = new ArrayList<>(inits.subList(redirectAt + 1, inits.size()));
        inits.subList(redirectAt + 1, inits.size()).clear();
        inits.addAll(redirectAt, late);
      }
    }
    Pod pod = ShallowCopy.of(original);
    PodSpec completed = ShallowCopy.of(spec);
    completed.setInitContainers(spec.getInitContainers() == null && inits.isEmpty() ? null : inits);
    completed.setContainers(containers);
    pod.setSpec(completed);
    ObjectMeta m = ShallowCopy.of(meta);
    Map<String, String> annotations = new LinkedHashMap<>(meta.getAnnotations());
    annotations.put(INJECTED_CONTAINERS, containerList(completed));
    m.setAnnotations(annotations);
    pod.setMetadata(m);
    return pod;
  }

  /** The value of {@link #INJECTED_CONTAINERS}: init containers first, then containers. */
  private static String containerList(PodSpec spec) {
    List<String> all = new ArrayList<>(nameList(orEmpty(spec.getInitContainers())));
    all.addAll(nameList(orEmpty(spec.getContainers())));
    return String.join(",", all);
  }

  private static List<String> nameList(List<Container> containers) {
    List<String> out = new ArrayList<>(containers.size());
    for (Container c : containers) {
      if (c != null && c.getName() != null) {
        out.add(c.getName());
      }
    }
    return out;
  }

  private static int indexOf(List<Container> containers, String name) {
    for (int i = 0; i < containers.size(); i++) {
      if (containers.get(i) != null && name.equals(containers.get(i).getName())) {
        return i;
      }
    }
    return -1;
  }

  /** Whether a list render reads, or a container's ports, holds a null element. */
  private static boolean holdsNulls(Pod pod) {
    if (pod.getMetadata() != null && hasNull(pod.getMetadata().getOwnerReferences())) {
      return true;
    }
    PodSpec spec = pod.getSpec();
    if (spec == null) {
      return false;
    }
    if (hasNull(spec.getVolumes()) || hasNull(spec.getEphemeralContainers())) {
      return true;
    }
    for (List<Container> list : Arrays.asList(spec.getContainers(), spec.getInitContainers())) {
      if (hasNull(list)) {
        return true;
      }
      for (Container c : orEmpty(list)) {
        if (hasNull(c.getPorts())) {
          return true;
        }
      }
    }
    return false;
  }

  /** A loop, not contains(null): immutable lists throw on that. */
  private static boolean hasNull(List<?> list) {
    if (list != null) {
      for (Object o : list) {
        if (o == null) {
          return true;
        }
      }
    }
    return false;
  }

  private static JsonNode names(List<Container> containers) {
    if (containers.isEmpty()) {
      return F.nullNode();
    }
    ArrayNode out = F.arrayNode();
    containers.forEach(c -> out.add(c.getName()));
    return out;
  }

  private Template.Values values(Pod pod, Decision decision, Plan plan) {
    Map<String, JsonNode> local = new HashMap<>(48);
    String namespace = namespace(pod, decision);
    local.put("pod.namespace", text(namespace));
    local.put("pod.inboundPorts", text(InboundPorts.of(pod.getSpec())));
    String[] workload = workload(pod, decision);
    local.put("workload.kind", text(workload[0]));
    local.put("workload.name", text(workload[1]));
    local.put("decision.summary", text(decision.summary()));
    local.put("decision.redirect", text(plan.path().redirect().id()));
    local.put(
        "decision.iptablesMode", text(plan.path().mode() == null ? "" : plan.path().mode().id()));
    local.put("decision.init", BooleanNode.valueOf(plan.path().redirect() == Redirect.INIT));
    local.put("decision.cni", BooleanNode.valueOf(plan.path().redirect() == Redirect.CNI));
    local.put(
        "decision.nativeSidecar",
        BooleanNode.valueOf(plan.proxy() == ProxyPlacement.NATIVE_SIDECAR));
    local.put("decision.proxyAwait", BooleanNode.valueOf(plan.proxyAwait()));
    Firewall fw =
        plan.path().mode() == null ? null : config.proxyInit().firewall().get(plan.path().mode());
    local.put("proxyInit.firewallBin", text(fw == null ? "" : fw.bin()));
    local.put("proxyInit.firewallSaveBin", text(fw == null ? "" : fw.saveBin()));
    String names = containerNames(pod.getSpec());
    local.put("pod.containerNames", text(names));
    local.put("pod.defaultContainer", text(names.split(",", 2)[0]));
    local.put("pod.containerPorts", text(containerPorts(pod.getSpec())));
    local.put("workload.apiVersion", text(workloadApiVersion(pod, workload[0])));
    // A bare pod is its own workload (Istio's ISTIO_META_WORKLOAD_NAME and ISTIO_META_OWNER).
    String[] owner =
        workload[1].isEmpty() ? new String[] {"pod", podName(pod, decision)} : workload;
    if (owner[1].isEmpty()) {
      owner = workload;
    }
    local.put("owner.kind", text(owner[0]));
    local.put("owner.name", text(owner[1]));
    // a label value holds at most 63 characters (Istio's canonical name of a long-named pod)
    local.put("owner.labelName", text(labelValue(owner[1])));
    local.put("owner.apiVersion", text(workloadApiVersion(pod, owner[0])));
    Map<String, JsonNode> global = config.values();
    Template.Values base =
        name -> {
          JsonNode v = local.get(name);
          if (v == null) {
            v = global.get(name);
          }
          // a key inside an object pod value that this pod's map lacks
          return v == null && TemplateConfig.isRenderValue(name, renderValues)
              ? MissingNode.getInstance()
              : v;
        };
    podValues(pod, base, local);
    local.put("pod.appProbers", text(rewriteProbes(pod, local)));
    return base;
  }

  /**
   * Points the app's probes at the proxy's agent where the config (and the pod's switch) says so;
   * the originals, as JSON, for the template.
   */
  private String rewriteProbes(Pod pod, Map<String, JsonNode> local) {
    boolean on = config.proxy().appProbes().rewrite();
    if (!appProbesPodValue.isEmpty()) {
      JsonNode v = local.get(TemplateConfig.POD_VALUE + appProbesPodValue);
      Boolean asked = v == null ? null : parseBool(v.asText());
      on = asked == null ? on : asked;
    }
    return on ? appProbes.apply(pod.getSpec()) : "";
  }

  /** Go's strconv.ParseBool, which Istio reads its switch with; null for anything else. */
  private static Boolean parseBool(String s) {
    return switch (s) {
      case "1", "t", "T", "true", "TRUE", "True" -> Boolean.TRUE;
      case "0", "f", "F", "false", "FALSE", "False" -> Boolean.FALSE;
      default -> null;
    };
  }

  /** Cut to a label value's 63 characters, ending in a letter or digit as a label value must. */
  static String labelValue(String name) {
    String cut = name.substring(0, Math.min(63, name.length()));
    int end = cut.length();
    while (end > 0 && !Character.isLetterOrDigit(cut.charAt(end - 1))) {
      end--;
    }
    return cut.substring(0, end);
  }

  private static String podName(Pod pod, Decision decision) {
    String name = pod.getMetadata().getName();
    if (name != null && !name.isEmpty()) {
      return name;
    }
    String[] parts = decision.workload().split("/", 3);
    return parts.length == 3 && parts[1].equals("Pod") ? parts[2] : "";
  }

  /**
   * The config's pod values: the first source the pod sets (checked by the engine), else the
   * default.
   */
  private void podValues(Pod pod, Template.Values base, Map<String, JsonNode> local) {
    if (config.podValues().isEmpty()) {
      return;
    }
    Map<String, String> annotations =
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    Map<String, String> labels = labels(pod.getMetadata());
    for (Map.Entry<String, PodValue> e : config.podValues().entrySet()) {
      String value = null;
      for (PodValue.Source s : e.getValue().from()) {
        value = (s.label() ? labels : annotations).get(s.key());
        if (value != null) {
          break;
        }
      }
      String fromPod = value;
      Template.Values withFrom =
          name -> name.equals("from") ? text(fromPod == null ? "" : fromPod) : base.get(name);
      JsonNode both = podValueDefaults.get(e.getKey()).render(withFrom);
      String name = TemplateConfig.POD_VALUE + e.getKey();
      if (e.getValue().object()) {
        JsonNode merged = objectValue(both.path("value"), fromPod);
        Template.flatten(name, merged, local);
      } else {
        // an empty text adds nothing to a default that whenSet builds on (Istio's
        // excludeInboundPorts: "" still excludes the agent's port, and only it)
        boolean asDefault =
            value == null || (value.isEmpty() && !e.getValue().whenSet().equals(FROM));
        value = both.path(asDefault ? "value" : "whenSet").asText("");
        local.put(name, text(value));
      }
    }
  }

  /**
   * An object pod value: the pod's map laid over the default's, key by key (the engine has checked
   * that the pod's text is a map).
   */
  private static JsonNode objectValue(JsonNode dflt, String fromPod) {
    ObjectNode out =
        dflt.isObject()
            ? ((ObjectNode) dflt).deepCopy()
            : dflt.asText("").isBlank()
                ? F.objectNode()
                : (ObjectNode) PodValue.parseObject(dflt.asText());
    if (fromPod != null) {
      merge(out, (ObjectNode) PodValue.parseObject(fromPod));
    }
    return out;
  }

  private static void merge(ObjectNode into, ObjectNode over) {
    Iterator<Map.Entry<String, JsonNode>> it = over.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode mine = into.get(e.getKey());
      if (mine != null && mine.isObject() && e.getValue().isObject()) {
        merge((ObjectNode) mine, (ObjectNode) e.getValue());
      } else {
        into.set(e.getKey(), e.getValue());
      }
    }
  }

  /** The app's container names, comma-separated (Istio's ISTIO_META_APP_CONTAINERS). */
  private static String containerNames(PodSpec spec) {
    List<String> names = new ArrayList<>();
    for (Container c : orEmpty(spec.getContainers())) {
      names.add(c.getName());
    }
    return String.join(",", names);
  }

  /**
   * The app containers' ports as a JSON list, one port a line, written as istiod writes {@code
   * ISTIO_META_POD_PORTS}: the fields a port sets, in the API's order.
   */
  static String containerPorts(PodSpec spec) {
    StringBuilder b = new StringBuilder("[");
    boolean first = true;
    for (Container c : orEmpty(spec.getContainers())) {
      for (io.fabric8.kubernetes.api.model.ContainerPort p : orEmpty(c.getPorts())) {
        com.fasterxml.jackson.databind.node.ObjectNode o = F.objectNode();
        if (p.getName() != null && !p.getName().isEmpty()) {
          o.put("name", p.getName());
        }
        if (p.getHostPort() != null && p.getHostPort() != 0) {
          o.put("hostPort", p.getHostPort());
        }
        o.put("containerPort", p.getContainerPort() == null ? 0 : p.getContainerPort());
        if (p.getProtocol() != null && !p.getProtocol().isEmpty()) {
          o.put("protocol", p.getProtocol());
        }
        if (p.getHostIP() != null && !p.getHostIP().isEmpty()) {
          o.put("hostIP", p.getHostIP());
        }
        b.append("\n    ").append(first ? "" : ",").append(o);
        first = false;
      }
    }
    return b.append("\n]").toString();
  }

  /** The API version of the workload {@link #workload} names, for owner URIs. */
  static String workloadApiVersion(Pod pod, String kind) {
    return switch (kind) {
      case "deployment", "statefulset", "daemonset", "replicaset" -> "apps/v1";
      case "job", "cronjob" -> "batch/v1";
      case "replicationcontroller", "pod" -> "v1";
      case "" -> "";
      default -> {
        for (OwnerReference ref : orEmpty(pod.getMetadata().getOwnerReferences())) {
          if (Boolean.TRUE.equals(ref.getController()) && ref.getApiVersion() != null) {
            yield ref.getApiVersion();
          }
        }
        yield "";
      }
    };
  }

  private static String namespace(Pod pod, Decision decision) {
    String ns = pod.getMetadata().getNamespace();
    if (ns != null && !ns.isEmpty()) {
      return ns;
    }
    String w = decision.workload();
    int slash = w.indexOf('/');
    return slash > 0 ? w.substring(0, slash) : "";
  }

  /**
   * Linkerd's {@code linkerd.io/proxy-<kind>: <name>}: the workload that owns the template, or for
   * a pod its controller, seen through a Deployment's ReplicaSet.
   */
  static String[] workload(Pod pod, Decision decision) {
    OwnerReference owner = null;
    for (OwnerReference ref : orEmpty(pod.getMetadata().getOwnerReferences())) {
      if (Boolean.TRUE.equals(ref.getController())) {
        owner = ref;
      }
    }
    // A created pod names its controller; the owner wins over the decision's workload id, which
    // for such a pod is the ReplicaSet rather than the Deployment Linkerd's tools look for.
    if (owner == null || owner.getKind() == null || owner.getName() == null) {
      String[] parts = decision.workload().split("/", 3);
      if (parts.length == 3 && !parts[1].equals("Pod") && !parts[2].isEmpty()) {
        return new String[] {parts[1].toLowerCase(Locale.ROOT), parts[2]};
      }
      return new String[] {"", ""};
    }
    String hash = labels(pod.getMetadata()).get("pod-template-hash");
    if (owner.getKind().equals("ReplicaSet")
        && hash != null
        && owner.getName().endsWith("-" + hash)) {
      return new String[] {
        "deployment", owner.getName().substring(0, owner.getName().length() - hash.length() - 1)
      };
    }
    return new String[] {owner.getKind().toLowerCase(Locale.ROOT), owner.getName()};
  }

  private static void applyMetadata(ObjectMeta meta, JsonNode rendered) {
    Map<String, String> labels = new LinkedHashMap<>(labels(meta));
    Map<String, String> annotations =
        new LinkedHashMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    putAll(labels, rendered.get("labels"));
    putAll(annotations, rendered.get("annotations"));
    meta.setLabels(labels);
    meta.setAnnotations(annotations);
  }

  private static void putAll(Map<String, String> target, JsonNode entries) {
    if (entries == null || !entries.isObject()) {
      return;
    }
    Iterator<Map.Entry<String, JsonNode>> it = entries.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      target.put(e.getKey(), e.getValue().asText());
    }
  }

  private static void addVolumes(PodSpec spec, Rendered rendered) {
    List<Volume> volumes = new ArrayList<>(orEmpty(spec.getVolumes()));
    Set<String> names = new HashSet<>();
    volumes.forEach(v -> names.add(v.getName()));
    for (Volume proto : rendered.volumes()) {
      // A volume of the same name that the pod already has stays: two would be refused.
      if (names.add(proto.getName())) {
        volumes.add(proto);
      }
    }
    spec.setVolumes(volumes);
  }

  /** The cached rendering's container, in a copy of its own: render sets its restart policy. */
  private Container container(Template t, Template.Values values) {
    return ShallowCopy.of(rendered(t, values).container());
  }

  /**
   * A template rendered once per combination of the per-pod values it uses: most pods share them,
   * and rendering plus conversion is most of the cost of an injection. The cached objects are
   * prototypes, copied before they go into a pod.
   */
  private Rendered rendered(Template t, Template.Values values) {
    List<String> keyNames = renderNames.computeIfAbsent(t, this::renderNamesOf);
    List<JsonNode> key = new ArrayList<>(keyNames.size());
    for (String n : keyNames) {
      key.add(values.get(n));
    }
    Map<List<JsonNode>, Rendered> byKey = cache.computeIfAbsent(t, x -> new ConcurrentHashMap<>());
    Rendered r = byKey.get(key);
    if (r == null) {
      if (byKey.size() >= MAX_CACHED) {
        byKey.clear();
      }
      r = Rendered.of(t, t.render(values));
      byKey.put(key, r);
    }
    return r;
  }

  private List<String> renderNamesOf(Template t) {
    List<String> names = new ArrayList<>();
    for (String n : t.names()) {
      if (TemplateConfig.isRenderValue(n, renderValues)) {
        names.add(n);
      }
    }
    return names;
  }

  /** One rendering of a template, as a tree and, where it is one, as model objects. */
  private record Rendered(JsonNode tree, Container container, List<Volume> volumes) {
    static Rendered of(Template t, JsonNode tree) {
      Container c = null;
      List<Volume> volumes = List.of();
      if (tree.isArray()) {
        List<Volume> vs = new ArrayList<>();
        for (JsonNode v : tree) {
          vs.add(convert(v, Volume.class, t.name()));
        }
        volumes = List.copyOf(vs);
      } else if (tree.has("name")) {
        c = convert(tree, Container.class, t.name());
      }
      return new Rendered(tree, c, volumes);
    }

    @Override
    public Container container() {
      if (container == null) {
        throw new TemplateException("template does not render a container");
      }
      return container;
    }
  }

  private static <T> T convert(JsonNode node, Class<T> type, String what) {
    try {
      return JSON.treeToValue(node, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new TemplateException(
          "template '"
              + what
              + "' does not render a "
              + type.getSimpleName()
              + ": "
              + e.getMessage());
    }
  }

  private static boolean hasName(PodSpec spec, String name) {
    if (hasName(spec.getContainers(), name) || hasName(spec.getInitContainers(), name)) {
      return true;
    }
    for (EphemeralContainer c : orEmpty(spec.getEphemeralContainers())) {
      if (name.equals(c.getName())) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasName(List<Container> containers, String name) {
    for (Container c : orEmpty(containers)) {
      if (name.equals(c.getName())) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, String> labels(ObjectMeta meta) {
    return meta.getLabels() == null ? Map.of() : meta.getLabels();
  }

  private static TextNode text(String s) {
    return F.textNode(s);
  }

  static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
