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
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.zjsonpatch.JsonPatch;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.templates.TemplateConfig.Firewall;
import io.meshinjector.templates.internal.AppProbeRewrite;
import io.meshinjector.templates.internal.InboundPorts;
import io.meshinjector.templates.internal.NodeAffinities;
import io.meshinjector.templates.internal.PodPatch;
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
   * The RFC 6902 patch that injects {@code pod}, against {@code received}, the tree it was read
   * from: empty when the decision does not inject, or the pod already has a container named like
   * the proxy or the redirect container. Neither argument is changed.
   *
   * <p>The operations are made where the injection changes the pod, each checked against {@code
   * received}; the app's containers, volumes and managed fields are never serialised or compared.
   * The values share the cached template renderings: serialise the patch, do not change it.
   *
   * @param pod {@code received} bound to a Pod (with {@code metadata.namespace} set where the
   *     request gave it), holding no null list element
   * @throws TemplateException when a replaced template produces something that is no container
   */
  public PatchResult patch(JsonNode received, Pod pod, Decision decision) {
    if (!decision.inject() || alreadyInjected(pod)) {
      return PatchResult.empty();
    }
    Plan plan = decision.plan().orElseThrow();
    Pod view =
        pod.getMetadata() != null && pod.getSpec() != null
            ? pod
            : new Pod(
                pod.getApiVersion(),
                pod.getKind(),
                pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata(),
                pod.getSpec() == null ? new PodSpec() : pod.getSpec(),
                null);
    PodSpec spec = view.getSpec();
    Map<String, JsonNode> local = new HashMap<>(48);
    Template.Values values = values(view, decision, plan, local);
    // the app containers with their probes pointed at the proxy, where the config says so
    PodSpec probed = new PodSpec();
    probed.setInitContainers(spec.getInitContainers());
    probed.setContainers(spec.getContainers());
    local.put("pod.appProbers", text(rewriteProbes(probed, local)));

    boolean nativeSidecar = plan.proxy() == ProxyPlacement.NATIVE_SIDECAR;
    Rendered proxy = rendered(config.templates().proxy(), values);
    Rendered redirect =
        rendered(
            plan.path().redirect() == Redirect.INIT
                ? config.templates().proxyInit()
                : config.templates().validator(),
            values);
    String proxyAs = proxy.container().getName();
    String redirectAs = redirect.container().getName();
    if (Objects.equals(proxyAs, redirectAs)) {
      throw new TemplateException(
          "the proxy and the redirect container are both named '" + proxyAs + "'");
    }
    // The API server refuses a pod with two containers of one name, across containers, init and
    // ephemeral containers. A pod that already has one of ours by name (another mesh's
    // linkerd-init, a half-injected pod) is left as it is, whatever the caller decided.
    if (hasName(spec, proxyAs) || hasName(spec, redirectAs)) {
      return PatchResult.empty();
    }

    List<String> inits = nameList(orEmpty(spec.getInitContainers()));
    List<String> containers = nameList(orEmpty(spec.getContainers()));
    if (nativeSidecar) {
      // The redirect must be in place before the proxy starts, and both before any app init
      // container, so that those already talk through the mesh.
      inits.addAll(0, List.of(redirectAs, proxyAs));
    } else {
      // Regular proxy: app init containers run before it exists, so they keep their own network
      // and the redirect comes last; the proxy goes first so its postStart hook holds the app.
      inits.add(redirectAs);
      containers.add(0, proxyAs);
    }

    Rendered volumes = rendered(config.templates().volumes(), values);
    Set<String> volumeNames = new HashSet<>();
    orEmpty(spec.getVolumes()).forEach(v -> volumeNames.add(v.getName()));
    List<JsonNode> newVolumes = new ArrayList<>();
    ArrayNode injectedVolumes = F.arrayNode();
    for (int i = 0; i < volumes.volumes().size(); i++) {
      String name = volumes.volumes().get(i).getName();
      injectedVolumes.add(name);
      // A volume of the same name that the pod already has stays: two would be refused.
      if (volumeNames.add(name)) {
        newVolumes.add(volumes.volumeTrees().get(i));
      }
    }

    // What was injected, for a mesh that records it on the pod (Istio's sidecar.istio.io/status).
    Map<String, JsonNode> injected = new HashMap<>(4);
    injected.put(
        "injected.initContainers",
        names(nativeSidecar ? List.of(redirectAs, proxyAs) : List.of(redirectAs)));
    injected.put("injected.containers", names(nativeSidecar ? List.of() : List.of(proxyAs)));
    injected.put("injected.volumes", injectedVolumes.isEmpty() ? F.nullNode() : injectedVolumes);
    Template.Values withInjected =
        name -> {
          JsonNode v = injected.get(name);
          return v != null ? v : values.get(name);
        };
    JsonNode metadata = rendered(config.templates().metadata(), withInjected).tree();
    Map<String, String> annotations = entries(metadata.get("annotations"));
    List<String> all = new ArrayList<>(inits);
    all.addAll(containers);
    annotations.put(INJECTED_CONTAINERS, String.join(",", all));

    PodPatch patch = new PodPatch(received);
    // first: these index the app's containers as received, before ours are inserted
    probeChanges(patch, "initContainers", spec.getInitContainers(), probed.getInitContainers());
    probeChanges(patch, "containers", spec.getContainers(), probed.getContainers());
    patch.putAll("labels", entries(metadata.get("labels")));
    patch.putAll("annotations", annotations);
    if (plan.nodeConstraint() != null) {
      requireNodes(patch, spec.getAffinity(), plan);
    }
    if (nativeSidecar) {
      patch.insert("initContainers", 0, List.of(redirect.asIs(), proxy.nativeSidecar()));
    } else {
      patch.insert("initContainers", -1, List.of(redirect.asIs()));
      patch.insert("containers", 0, List.of(proxy.regular()));
    }
    patch.insert("volumes", -1, newVolumes);
    return new PatchResult(patch.ops());
  }

  /**
   * The injected pod, as a new object: {@link #patch} applied to {@code original}'s own tree. For
   * the CLI's manifests and for tests; the webhook sends the patch. {@code original} is not
   * touched.
   *
   * @throws TemplateException when a replaced template produces something that is no container
   */
  public Pod render(Pod original, Decision decision) {
    // A null in a list render reads (a pod the API server refuses, but the CLI may be given one)
    // becomes an empty object in a builder's copy, which render has always read from.
    Pod source = holdsNulls(original) ? new PodBuilder(original).build() : original;
    JsonNode tree = JSON.valueToTree(source);
    return applied(tree, patch(tree, source, decision));
  }

  /**
   * A pod this injector injected, after a later mutating webhook added containers to it: the patch
   * that moves the added ones to where the injected layout puts app containers and updates {@link
   * #INJECTED_CONTAINERS}. Empty when there is nothing to do (no proxy, no annotation, or every
   * container listed), so the patch of a completed pod is empty.
   *
   * <p>Only the layout is completed. Values the proxy's template derives from the app containers
   * when it is rendered (the inbound ports, the app probe rewrite of a flavour that turns it on)
   * describe the containers of the first injection.
   *
   * @param received the tree {@code pod} was read from; the lists it moves are its elements
   */
  public PatchResult completion(JsonNode received, Pod pod) {
    ObjectMeta meta = pod.getMetadata();
    PodSpec spec = pod.getSpec();
    String listed =
        meta == null || meta.getAnnotations() == null
            ? null
            : meta.getAnnotations().get(INJECTED_CONTAINERS);
    if (listed == null || spec == null || !alreadyInjected(pod)) {
      return PatchResult.empty();
    }
    Set<String> known = new HashSet<>(Arrays.asList(listed.split(",")));
    List<Container> inits = new ArrayList<>(orEmpty(spec.getInitContainers()));
    List<Container> containers = new ArrayList<>(orEmpty(spec.getContainers()));
    if (known.containsAll(nameList(inits)) && known.containsAll(nameList(containers))) {
      return PatchResult.empty();
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
    PodPatch patch = new PodPatch(received);
    if (!inits.equals(orEmpty(spec.getInitContainers()))) {
      patch.setList("initContainers", reordered(received, "initContainers", spec, inits));
    }
    if (!containers.equals(orEmpty(spec.getContainers()))) {
      patch.setList("containers", reordered(received, "containers", spec, containers));
    }
    List<String> all = nameList(inits);
    all.addAll(nameList(containers));
    patch.putAll("annotations", Map.of(INJECTED_CONTAINERS, String.join(",", all)));
    return new PatchResult(patch.ops());
  }

  /**
   * {@link #completion} applied to {@code original}'s own tree, as a new object; {@code original}
   * itself when there is nothing to do, so a second call on the same pod changes nothing.
   */
  public Pod complete(Pod original) {
    JsonNode tree = JSON.valueToTree(original);
    PatchResult patch = completion(tree, original);
    return patch.isEmpty() ? original : applied(tree, patch);
  }

  /**
   * The received elements of a list in the new order, found by identity in the typed list they were
   * bound to; serialised where the two do not line up.
   */
  private static List<JsonNode> reordered(
      JsonNode received, String list, PodSpec spec, List<Container> order) {
    List<Container> before =
        orEmpty(list.equals("containers") ? spec.getContainers() : spec.getInitContainers());
    JsonNode elements = received.path("spec").path(list);
    List<JsonNode> out = new ArrayList<>(order.size());
    for (Container c : order) {
      int at = -1;
      for (int i = 0; i < before.size() && at < 0; i++) {
        at = before.get(i) == c ? i : -1;
      }
      boolean aligned = elements.isArray() && elements.size() == before.size() && at >= 0;
      out.add(aligned ? elements.get(at) : JSON.valueToTree(c));
    }
    return out;
  }

  private static Pod applied(JsonNode tree, PatchResult patch) {
    JsonNode out = patch.isEmpty() ? tree : JsonPatch.apply(patch.patch().deepCopy(), tree);
    try {
      return JSON.treeToValue(out, Pod.class);
    } catch (JsonProcessingException e) {
      throw new TemplateException("the injected pod does not read back as a Pod: " + e);
    }
  }

  /**
   * One operation a probe or hook the rewrite changed; {@code rewritten} holds a new container
   * where it changed one.
   */
  private static void probeChanges(
      PodPatch patch, String list, List<Container> original, List<Container> rewritten) {
    if (original == null || rewritten == original) {
      return;
    }
    for (int i = 0; i < original.size(); i++) {
      Container a = original.get(i);
      Container b = rewritten.get(i);
      if (a == b) {
        continue;
      }
      changed(patch, list, i, "readinessProbe", a.getReadinessProbe(), b.getReadinessProbe());
      changed(patch, list, i, "livenessProbe", a.getLivenessProbe(), b.getLivenessProbe());
      changed(patch, list, i, "startupProbe", a.getStartupProbe(), b.getStartupProbe());
      changed(patch, list, i, "lifecycle", a.getLifecycle(), b.getLifecycle());
    }
  }

  private static void changed(
      PodPatch patch, String list, int index, String member, Object before, Object after) {
    if (after != null && !after.equals(before)) {
      patch.setInElement(list, index, member, JSON.valueToTree(after));
    }
  }

  /** The pod's required node affinity narrowed by the plan's constraint, where that changes it. */
  private static void requireNodes(PodPatch patch, Affinity before, Plan plan) {
    Affinity after = NodeAffinities.required(before, plan.nodeConstraint());
    if (!after.equals(before)) {
      patch.setMember(
          "affinity",
          "nodeAffinity",
          JSON.valueToTree(after.getNodeAffinity()),
          JSON.valueToTree(after));
    }
  }

  /** A rendered metadata map's entries as text, in the template's order. */
  private static Map<String, String> entries(JsonNode rendered) {
    Map<String, String> out = new LinkedHashMap<>();
    if (rendered != null && rendered.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = rendered.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        out.put(e.getKey(), e.getValue().asText());
      }
    }
    return out;
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

  private static JsonNode names(List<String> names) {
    if (names.isEmpty()) {
      return F.nullNode();
    }
    ArrayNode out = F.arrayNode();
    names.forEach(out::add);
    return out;
  }

  /**
   * The template values of one pod; {@code local} takes the per-pod ones, and the caller adds
   * {@code pod.appProbers}.
   */
  private Template.Values values(
      Pod pod, Decision decision, Plan plan, Map<String, JsonNode> local) {
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
    return base;
  }

  /**
   * Points the app's probes at the proxy's agent where the config (and the pod's switch) says so,
   * in {@code spec}'s lists; the originals, as JSON, for the template.
   */
  private String rewriteProbes(PodSpec spec, Map<String, JsonNode> local) {
    boolean on = config.proxy().appProbes().rewrite();
    if (!appProbesPodValue.isEmpty()) {
      JsonNode v = local.get(TemplateConfig.POD_VALUE + appProbesPodValue);
      Boolean asked = v == null ? null : parseBool(v.asText());
      on = asked == null ? on : asked;
    }
    return on ? appProbes.apply(spec) : "";
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

  /**
   * One rendering of a template: the tree of the metadata template; the volumes of the volumes
   * template, as model objects and as they serialise; a container template's container as a model
   * object, and as it serialises in the role the patch gives it (computed on first use: the proxy's
   * rendering is used as a sidecar or as a container, the redirect's as it is). The patch carries
   * the model's form (a port as a number, no field the model does not know), which is what the API
   * server reads. Cached renderings of per-pod values turn over, so each holds one form.
   */
  private static final class Rendered {
    private final JsonNode tree;
    private final Container container;
    private final List<Volume> volumes;
    private final List<JsonNode> volumeTrees;
    private volatile JsonNode asIs;
    private volatile JsonNode nativeSidecar;
    private volatile JsonNode regular;

    private Rendered(
        JsonNode tree, Container container, List<Volume> volumes, List<JsonNode> volumeTrees) {
      this.tree = tree;
      this.container = container;
      this.volumes = volumes;
      this.volumeTrees = volumeTrees;
    }

    static Rendered of(Template t, JsonNode tree) {
      if (tree.isArray()) {
        List<Volume> volumes = new ArrayList<>();
        List<JsonNode> volumeTrees = new ArrayList<>();
        for (JsonNode v : tree) {
          Volume volume = convert(v, Volume.class, t.name());
          volumes.add(volume);
          volumeTrees.add(JSON.valueToTree(volume));
        }
        return new Rendered(null, null, List.copyOf(volumes), List.copyOf(volumeTrees));
      }
      if (tree.has("name")) {
        return new Rendered(null, convert(tree, Container.class, t.name()), List.of(), List.of());
      }
      return new Rendered(tree, null, List.of(), List.of());
    }

    JsonNode tree() {
      if (tree == null) {
        throw new TemplateException("template does not render an object of labels and annotations");
      }
      return tree;
    }

    List<Volume> volumes() {
      return volumes;
    }

    List<JsonNode> volumeTrees() {
      return volumeTrees;
    }

    Container container() {
      if (container == null) {
        throw new TemplateException("template does not render a container");
      }
      return container;
    }

    /** The container as rendered. */
    JsonNode asIs() {
      JsonNode t = asIs;
      if (t == null) {
        asIs = t = JSON.valueToTree(container());
      }
      return t;
    }

    /** The container with {@code restartPolicy: Always}. */
    JsonNode nativeSidecar() {
      JsonNode t = nativeSidecar;
      if (t == null) {
        nativeSidecar = t = withRestartPolicy("Always");
      }
      return t;
    }

    /** The container without a restart policy. */
    JsonNode regular() {
      JsonNode t = regular;
      if (t == null) {
        regular = t = withRestartPolicy(null);
      }
      return t;
    }

    private JsonNode withRestartPolicy(String policy) {
      return JSON.valueToTree(new ContainerBuilder(container()).withRestartPolicy(policy).build());
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
