package io.meshinjector.engine.rules;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.decision.TraceStep;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Whether a pod is injected at all, before any node is looked at: excluded namespaces, the inject
 * annotation under either spelling (the pod's wins over the namespace's, whose setting may also
 * come from the mesh's labels: {@link NamespaceInject}), hostNetwork, our proxy already there
 * (which makes injection idempotent), another mesh's parts.
 */
public final class InjectGate {
  private final InjectionConfig config;

  public InjectGate(InjectionConfig config) {
    this.config = config;
  }

  /**
   * An outcome that ends the decision here, or empty when the pod goes on to the rules.
   *
   * @param warnings receives what the caller must see even when the pod is admitted: two spellings
   *     of the inject annotation that disagree on one object
   */
  public Optional<Outcome> check(
      Pod pod, Namespace namespace, Consumer<TraceStep> trace, Consumer<String> warnings) {
    String ns = pod.getMetadata().getNamespace();
    if (ns != null && config.excludedNamespaces().contains(ns)) {
      trace.accept(new TraceStep("gate", "namespace " + ns + " is excluded by config"));
      return Optional.of(
          new Outcome.Skip(SkipReason.EXCLUDED_NAMESPACE, "namespace " + ns + " is excluded"));
    }
    Optional<Outcome> optOut = FlavourAnnotations.optOut(pod, namespace, config, trace);
    if (optOut.isPresent()) {
      return optOut;
    }
    Optional<InjectAnnotation> podInject;
    Optional<InjectAnnotation> nsInject = Optional.empty();
    try {
      podInject = PodAnnotations.inject(pod.getMetadata().getAnnotations(), null);
      // The pod's value wins, so a typo on the namespace must not refuse a pod that decided.
      if (podInject.isEmpty() && namespace != null) {
        nsInject = NamespaceInject.of(namespace, config.meshNamespaceLabels());
      }
    } catch (PodAnnotations.InvalidAnnotation e) {
      trace.accept(new TraceStep("gate", e.getMessage()));
      return Optional.of(new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, e.getMessage()));
    }
    String from = podInject.isPresent() ? "pod" : "namespace " + ns;
    Optional<InjectAnnotation> effective = podInject.isPresent() ? podInject : nsInject;
    if (effective.isEmpty()) {
      trace.accept(new TraceStep("gate", "injection not enabled on the pod or namespace " + ns));
      return Optional.of(
          new Outcome.Skip(SkipReason.NOT_ENABLED, "injection is not enabled for namespace " + ns));
    }
    InjectAnnotation inject = effective.get();
    if (inject.conflict() != null) {
      trace.accept(new TraceStep("gate", inject.conflict()));
      warnings.accept(inject.conflict());
    }
    if (!inject.enabled()) {
      trace.accept(
          new TraceStep(
              "gate", "injection disabled by the " + from + " (" + inject.describe() + ")"));
      return Optional.of(
          new Outcome.Skip(SkipReason.INJECTION_DISABLED, "injection disabled by the " + from));
    }
    trace.accept(
        new TraceStep("gate", "injection enabled by the " + from + " (" + inject.describe() + ")"));
    PodSpec spec = pod.getSpec();
    if (spec != null && Boolean.TRUE.equals(spec.getHostNetwork())) {
      trace.accept(new TraceStep("gate", "hostNetwork pod: its traffic is the node's"));
      return Optional.of(new Outcome.Skip(SkipReason.HOST_NETWORK, "pod uses hostNetwork"));
    }
    List<String> names = containerNames(spec);
    if (names.contains(config.proxyContainerName())) {
      trace.accept(
          new TraceStep("gate", "container " + config.proxyContainerName() + " already present"));
      return Optional.of(
          new Outcome.Skip(SkipReason.ALREADY_INJECTED, "pod already carries the proxy"));
    }
    Optional<String> foreign =
        names.stream().filter(config.otherMeshContainers()::contains).findFirst();
    if (foreign.isPresent()) {
      trace.accept(
          new TraceStep("gate", "container " + foreign.get() + " belongs to another mesh"));
      return Optional.of(
          new Outcome.Skip(
              SkipReason.OTHER_MESH,
              "pod carries " + foreign.get() + " from another mesh or injector"));
    }
    return FlavourAnnotations.refusal(pod, namespace, config, trace);
  }

  private static List<String> containerNames(PodSpec spec) {
    if (spec == null) {
      return List.of();
    }
    Stream<Container> all =
        Stream.concat(
            spec.getContainers() == null ? Stream.empty() : spec.getContainers().stream(),
            spec.getInitContainers() == null ? Stream.empty() : spec.getInitContainers().stream());
    // a container without a name is the API server's to refuse; here it matches nothing
    return all.filter(Objects::nonNull).map(Container::getName).filter(Objects::nonNull).toList();
  }
}
