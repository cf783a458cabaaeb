package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.templates.TemplateConfig.Firewall;
import io.meshinjector.templates.internal.AppContainers;
import io.meshinjector.templates.internal.AppProbeRewrite;
import io.meshinjector.templates.internal.InboundPorts;
import io.meshinjector.templates.internal.PodIdentity;
import io.meshinjector.templates.internal.PodIdentity.Workload;
import io.meshinjector.templates.internal.Template;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The values one pod's templates render with: those the decision, the pod and its owner set, the
 * config's pod values as the pod sets them, and the config's own. Package-private because it reads
 * what {@link TemplateConfig} keeps to the renderer.
 */
final class TemplateValues {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String FROM = "$" + "{from}";

  private final TemplateConfig config;
  private final Set<String> renderValues;
  private final Map<String, Template> podValueDefaults = new LinkedHashMap<>();
  private final AppProbeRewrite appProbes;
  private final String appProbesPodValue;
  private final ProxyValues proxyValues;

  /** The config's values, with the proxy values a pod without annotations has laid over them. */
  private final Map<String, JsonNode> global;

  /** {@link #global} as the pods of a plan that redirects IPv6 too have it. */
  private final Map<String, JsonNode> globalIpv6;

  TemplateValues(TemplateConfig config) {
    this.config = config;
    this.renderValues = Set.copyOf(config.renderValues());
    config
        .podValues()
        .forEach((n, v) -> podValueDefaults.put(n, TemplateConfig.defaultTemplate(n, v)));
    TemplateConfig.AppProbes probes = config.proxy().appProbes();
    this.appProbes =
        new AppProbeRewrite(
            config.proxy().ports().control(),
            probes.probePath(),
            probes.hookPath(),
            config.proxyContainerName());
    this.appProbesPodValue = config.appProbesPodValue();
    this.proxyValues = new ProxyValues(config);
    Map<String, JsonNode> g = new java.util.HashMap<>(config.values());
    g.putAll(proxyValues.defaults());
    this.global = Map.copyOf(g);
    g.putAll(config.ipv6Values());
    this.globalIpv6 = Map.copyOf(g);
  }

  /**
   * Whether each render sets the value, rather than the config; those the plan's IPv6 switch
   * changes count as set by each render, so that a cached rendering never serves the other family.
   */
  boolean perPod(String name) {
    return TemplateConfig.isRenderValue(name, renderValues)
        || config.ipv6Values().containsKey(name);
  }

  /**
   * The template values of one pod; {@code local} takes the per-pod ones, and the caller adds
   * {@code pod.appProbers}.
   */
  Template.Values of(Pod pod, Decision decision, Plan plan, Map<String, JsonNode> local) {
    local.put("pod.namespace", text(PodIdentity.namespace(pod, decision)));
    local.put("pod.inboundPorts", text(InboundPorts.of(pod.getSpec())));
    Workload workload = PodIdentity.workload(pod, decision);
    local.put("workload.kind", text(workload.kind()));
    local.put("workload.name", text(workload.name()));
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
    // the mesh's own IPv6 switch follows the plan (proxyInit.ipv6 is only the engine's default)
    local.put("decision.ipv6", BooleanNode.valueOf(plan.ipv6()));
    Firewall firewall =
        plan.path().mode() == null ? null : config.proxyInit().firewall().get(plan.path().mode());
    local.put("proxyInit.firewallBin", text(firewall == null ? "" : firewall.bin()));
    local.put("proxyInit.firewallSaveBin", text(firewall == null ? "" : firewall.saveBin()));
    String names = AppContainers.names(pod.getSpec());
    local.put("pod.containerNames", text(names));
    local.put("pod.defaultContainer", text(names.split(",", 2)[0]));
    local.put("pod.containerPorts", text(AppContainers.ports(pod.getSpec())));
    local.put("workload.apiVersion", text(PodIdentity.workloadApiVersion(pod, workload.kind())));
    Workload owner = PodIdentity.owner(pod, decision, workload);
    local.put("owner.kind", text(owner.kind()));
    local.put("owner.name", text(owner.name()));
    // a label value holds at most 63 characters (Istio's canonical name of a long-named pod)
    local.put("owner.labelName", text(PodIdentity.labelValue(owner.name())));
    local.put("owner.apiVersion", text(PodIdentity.workloadApiVersion(pod, owner.kind())));
    proxyValues.put(pod, plan, decision.overrides(), config.linkerdAnnotations(), local);
    Map<String, JsonNode> configured = plan.ipv6() ? globalIpv6 : global;
    Template.Values base =
        name -> {
          JsonNode v = local.get(name);
          if (v == null) {
            v = configured.get(name);
          }
          // a key inside an object pod value that this pod's map lacks
          return v == null && perPod(name) ? MissingNode.getInstance() : v;
        };
    podValues(pod, base, local);
    return base;
  }

  /**
   * Points the app's probes at the proxy's agent where the config (and the pod's switch) says so,
   * in {@code spec}'s lists; the originals, as JSON, for the template.
   *
   * @param local the pod's values from {@link #of}, which hold the switch
   */
  String appProbers(PodSpec spec, Map<String, JsonNode> local) {
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
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
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

  private static TextNode text(String s) {
    return F.textNode(s);
  }
}
