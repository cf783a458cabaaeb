package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.config.InjectionConfig.MeshNamespaceLabels;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.engine.revisions.Route;
import io.meshinjector.engine.revisions.RouteResolver;
import io.meshinjector.engine.rules.InjectAnnotation;
import io.meshinjector.engine.rules.IstioNamespaceLabels;
import io.meshinjector.engine.rules.NamespaceInject;
import io.meshinjector.engine.rules.PodAnnotations;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The routes of a cluster as {@code check} read it: its revisions and tags, its namespaces, and the
 * webhook's own {@link RouteResolver}, so that check says what the webhook would do.
 */
final class Routing {
  private final RouteResolver routes;
  private final Revisions revisions;
  private final String self;
  private final InjectionConfig injection;
  private final Map<String, Namespace> namespaces = new TreeMap<>();

  /**
   * @param self the release's revision: every name's when the cluster's revisions are unknown
   * @param injection the config's namespaces never injected, and whose labels opt one in
   */
  Routing(Revisions revisions, String self, InjectionConfig injection, List<Namespace> namespaces) {
    this.revisions = revisions;
    this.self = self;
    this.injection = injection;
    this.routes = RouteResolver.of(injection);
    namespaces.forEach(n -> this.namespaces.put(n.getMetadata().getName(), n));
  }

  Revisions revisions() {
    return revisions;
  }

  Optional<Namespace> namespace(String name) {
    return Optional.ofNullable(namespaces.get(name));
  }

  /** Every namespace read, by name. */
  List<Namespace> namespaces() {
    return List.copyOf(namespaces.values());
  }

  /** The namespaces that opted in and are not excluded, by name. */
  List<Namespace> optedIn() {
    return namespaces.values().stream()
        .filter(this::optedIn)
        .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
        .toList();
  }

  boolean optedIn(Namespace ns) {
    return !excluded(ns) && NamespaceInject.enabled(ns, injection.meshNamespaceLabels());
  }

  /** Whether the config never injects the namespace, whatever it says. */
  boolean excluded(Namespace ns) {
    return injection.excludedNamespaces().contains(ns.getMetadata().getName());
  }

  /**
   * Whether a pod with these template annotations in {@code namespace} asks for a proxy: its own
   * inject annotation (either spelling) wins over its namespace's, as in the webhook's gate.
   */
  boolean optedIn(String namespace, Map<String, String> podInject) {
    if (injection.excludedNamespaces().contains(namespace)) {
      return false;
    }
    if (!podInject.isEmpty()) {
      return InjectAnnotation.enabledBy(podInject);
    }
    return namespace(namespace).map(this::optedIn).orElse(false);
  }

  /**
   * Whether the namespace names a revision or tag itself ({@value RevisionNames#REV}, or in the
   * Istio flavour its Istio labels).
   */
  boolean namesOne(Namespace ns) {
    String rev = ClusterChecks.mapOf(ns.getMetadata().getAnnotations()).get(RevisionNames.REV);
    return (rev != null && !rev.isEmpty())
        || (injection.meshNamespaceLabels() == MeshNamespaceLabels.ISTIO
            && IstioNamespaceLabels.names(ns).isPresent());
  }

  /**
   * What the namespace's selections say against each other: in the Istio flavour, both Istio
   * labels, or one that disagrees with {@value RevisionNames#REV}, or with the {@code inject}
   * annotation.
   */
  List<String> conflicts(Namespace ns) {
    if (injection.meshNamespaceLabels() != MeshNamespaceLabels.ISTIO) {
      return List.of();
    }
    List<String> out = new ArrayList<>(IstioNamespaceLabels.conflicts(ns, RevisionNames.REV));
    try {
      NamespaceInject.of(ns, injection.meshNamespaceLabels())
          .map(InjectAnnotation::conflict)
          .filter(Objects::nonNull)
          .ifPresent(out::add);
    } catch (PodAnnotations.InvalidAnnotation e) {
      out.add(e.getMessage());
    }
    return out;
  }

  /** The route of the namespace's new pods that name no revision themselves. */
  Route ofNamespace(Namespace ns) {
    return routes.route(null, ns, revisions, self);
  }

  /** The route of a pod with these annotations in {@code namespace}. */
  Route ofPod(String namespace, Map<String, String> annotations) {
    return routes.route(annotations, namespace(namespace).orElse(null), revisions, self);
  }

  /** The route of {@code name}, said to come {@code from} somewhere. */
  Route ofName(String name, String from) {
    return routes.resolveName(name, from, revisions, self);
  }

  /**
   * The route the namespace's routing label names, which is what the API server routes its pods on;
   * empty when it carries none.
   */
  Optional<Route> ofLabel(Namespace ns) {
    String value = ClusterChecks.mapOf(ns.getMetadata().getLabels()).get(RevisionNames.ROUTE_LABEL);
    if (value == null || value.isEmpty() || "disabled".equals(value)) {
      return Optional.empty();
    }
    return Optional.of(
        ofName(
            RevisionNames.nameOfRoute(value),
            "namespace "
                + ns.getMetadata().getName()
                + "'s label "
                + RevisionNames.ROUTE_LABEL
                + "="
                + value));
  }

  /** How a resolved route reads in a line: {@code revision 1-2 (tag prod)}. */
  static String target(Route.Resolved r) {
    return "revision " + r.revision() + (r.tag() ? " (tag " + r.asked() + ")" : "");
  }

  /** The inject annotations among {@code annotations}, either spelling. */
  static Map<String, String> injectOf(Map<String, String> annotations) {
    Map<String, String> out = new TreeMap<>();
    for (String k : List.of(Annotations.INJECT, Annotations.INJECT_PREFIXED)) {
      if (annotations.get(k) != null) {
        out.put(k, annotations.get(k));
      }
    }
    return out;
  }
}
