package io.meshinjector.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.IptablesMode;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.templates.internal.AppProbeRewrite;
import io.meshinjector.templates.internal.ContainerLayout;
import io.meshinjector.templates.internal.InjectedMetadata;
import io.meshinjector.templates.internal.NodeAffinities;
import io.meshinjector.templates.internal.PodPatch;
import io.meshinjector.templates.internal.RenderCache;
import io.meshinjector.templates.internal.RenderedTemplate;
import io.meshinjector.templates.internal.Template;
import io.meshinjector.templates.internal.TemplateException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a pod and the engine's {@link Decision} into the RFC 6902 patch that injects it. Pure and
 * thread-safe; the templates were parsed when the {@link TemplateConfig} was built.
 */
public final class PodInjector {
  /**
   * Written on every pod this injector injects: the names of all its containers and init containers
   * once injected, comma-separated. A container missing from it was added after the injection (by a
   * later mutating webhook), and the chart's matchCondition sends only such pods back on
   * reinvocation.
   */
  public static final String INJECTED_CONTAINERS = "mesh-injector.io/injected-containers";

  private final TemplateConfig config;
  private final String proxyName;
  private final TemplateValues templateValues;
  private final RenderCache renderings;

  /**
   * Whether the redirect template runs the iptables binaries of the plan's mode ({@code
   * proxyInit.firewallBin}), as Linkerd's proxy-init does; Istio's istio-iptables picks its own.
   */
  private final boolean initRunsIptables;

  public PodInjector(TemplateConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.proxyName = config.proxyContainerName();
    this.templateValues = new TemplateValues(config);
    this.renderings = new RenderCache(templateValues::perPod);
    Set<String> initNames = config.templates().proxyInit().names();
    this.initRunsIptables =
        initNames.contains("proxyInit.firewallBin")
            || initNames.contains("proxyInit.firewallSaveBin");
  }

  /** Whether the pod already has the proxy, as a container or an init container. */
  private boolean alreadyInjected(Pod pod) {
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
   * @throws TemplateException when a replaced template produces something that is no container, or
   *     the plan's iptables mode is one the redirect template cannot run (native nftables for
   *     Linkerd's proxy-init, which the engine never chooses)
   */
  public PatchResult patch(JsonNode received, Pod pod, Decision decision) {
    if (!decision.inject() || alreadyInjected(pod)) {
      return PatchResult.empty();
    }
    Plan plan = decision.plan().orElseThrow();
    checkRunnable(plan);
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
    Template.Values values = templateValues.of(view, decision, plan, local);
    // the app containers with their probes pointed at the proxy, where the config says so
    PodSpec probed = new PodSpec();
    probed.setInitContainers(spec.getInitContainers());
    probed.setContainers(spec.getContainers());
    local.put(
        "pod.appProbers",
        JsonNodeFactory.instance.textNode(templateValues.appProbers(probed, local)));

    boolean nativeSidecar = plan.proxy() == ProxyPlacement.NATIVE_SIDECAR;
    RenderedTemplate proxy = renderings.rendered(config.templates().proxy(), values);
    RenderedTemplate redirect =
        renderings.rendered(
            plan.path().redirect() == Redirect.INIT
                ? config.templates().proxyInit()
                : config.templates().validator(),
            values);
    String proxyAs = proxy.container().getName();
    String redirectAs = redirect.container().getName();
    RenderedTemplate debug = debugSidecar(decision, spec, values);
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

    RenderedTemplate volumes = renderings.rendered(config.templates().volumes(), values);
    Set<String> volumeNames = new HashSet<>();
    orEmpty(spec.getVolumes()).forEach(v -> volumeNames.add(v.getName()));
    List<JsonNode> newVolumes = new ArrayList<>();
    ArrayNode injectedVolumes = JsonNodeFactory.instance.arrayNode();
    for (int i = 0; i < volumes.volumes().size(); i++) {
      String name = volumes.volumes().get(i).getName();
      injectedVolumes.add(name);
      // A volume of the same name that the pod already has stays: two would be refused.
      if (volumeNames.add(name)) {
        newVolumes.add(volumes.volumeTrees().get(i));
      }
    }

    Template.Values withInjected =
        InjectedMetadata.values(values, redirectAs, proxyAs, nativeSidecar, injectedVolumes);
    JsonNode metadata = renderings.rendered(config.templates().metadata(), withInjected).tree();
    Map<String, String> annotations = new LinkedHashMap<>();
    // the namespace's configuration annotations that apply, onto the pod, as Linkerd's injector
    // writes them (the mesh CNI plugin reads its skip ports from the pod)
    annotations.putAll(decision.overrides().inherited());
    String opaque = values.get("pod.opaquePortsAnnotation").asText();
    if (!opaque.isEmpty()) {
      annotations.put(io.meshinjector.engine.linkerd.LinkerdAnnotation.OPAQUE_PORTS.key(), opaque);
    }
    annotations.putAll(InjectedMetadata.entries(metadata.get("annotations")));
    List<String> injectedNames =
        new ArrayList<>(ContainerLayout.injectedNames(spec, redirectAs, proxyAs, nativeSidecar));
    if (debug != null) {
      injectedNames.add(debug.container().getName());
    }
    annotations.put(INJECTED_CONTAINERS, String.join(",", injectedNames));
    // in code rather than in the metadata template, so a replaced template still records it
    annotations.put(Annotations.CONFIG_DIGEST, config.configDigest());
    // under its own key, not the routing one: which injector made the pod, for check and retiring
    annotations.put(RevisionNames.REVISION, config.revision());

    PodPatch patch = new PodPatch(received);
    // first: these index the app's containers as received, before ours are inserted
    AppProbeRewrite.patchChanges(
        patch, "initContainers", spec.getInitContainers(), probed.getInitContainers());
    AppProbeRewrite.patchChanges(patch, "containers", spec.getContainers(), probed.getContainers());
    patch.putAll("labels", InjectedMetadata.entries(metadata.get("labels")));
    patch.putAll("annotations", annotations);
    if (plan.nodeConstraint() != null) {
      NodeAffinities.patchRequired(patch, spec.getAffinity(), plan.nodeConstraint());
    }
    ContainerLayout.insert(patch, redirect, proxy, nativeSidecar);
    if (debug != null) {
      patch.insert("containers", -1, List.of(debug.asIs()));
    }
    patch.insert("volumes", -1, newVolumes);
    return new PatchResult(patch.ops());
  }

  /**
   * A redirect template that runs the mode's iptables binaries cannot render a mode that has none
   * ({@code proxyInit.firewall} lists no binaries for {@code nftables}, which programs nftables
   * itself): it would run a pod whose init container calls an empty binary path and crash-loops.
   * Fail the admission naming the problem instead; the engine does not choose such a plan.
   */
  private void checkRunnable(Plan plan) {
    IptablesMode mode = plan.path().mode();
    if (plan.path().redirect() != Redirect.INIT
        || !initRunsIptables
        || config.proxyInit().firewall().containsKey(mode)) {
      return;
    }
    Template init = config.templates().proxyInit();
    throw new TemplateException(
        "cannot inject with "
            + plan.path()
            + ": config key '"
            + TemplateSection.key(init)
            + "'"
            + (init.name().endsWith(TemplateSection.BUILT_IN) ? TemplateSection.BUILT_IN : "")
            + " runs the iptables binaries of the chosen mode (proxyInit.firewallBin), and mode "
            + mode.id()
            + " has none (proxyInit.firewall lists "
            + new java.util.TreeSet<>(
                config.proxyInit().firewall().keySet().stream().map(IptablesMode::id).toList())
            + "): this proxy-init has no native nftables mode (Linkerd's has none), so the"
            + " engine must not choose "
            + plan.path()
            + " for this flavour");
  }

  /**
   * Linkerd's debug sidecar, when the pod (or its namespace) asks for it and the mesh has one; null
   * else, or when the pod already has a container of its name.
   */
  private RenderedTemplate debugSidecar(Decision decision, PodSpec spec, Template.Values values) {
    Template t = config.templates().debug();
    boolean asked =
        decision
            .overrides()
            .value(io.meshinjector.engine.linkerd.LinkerdAnnotation.ENABLE_DEBUG_SIDECAR.key())
            .map("true"::equals)
            .orElse(false);
    if (t == null || !asked) {
      return null;
    }
    RenderedTemplate debug = renderings.rendered(t, values);
    return hasName(spec, debug.container().getName()) ? null : debug;
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
    PodPatch patch = new PodPatch(received);
    Optional<List<String>> completed =
        ContainerLayout.complete(patch, received, spec, known, proxyName);
    if (completed.isEmpty()) {
      return PatchResult.empty();
    }
    patch.putAll("annotations", Map.of(INJECTED_CONTAINERS, String.join(",", completed.get())));
    return new PatchResult(patch.ops());
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

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
