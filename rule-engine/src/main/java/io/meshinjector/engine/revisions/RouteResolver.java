package io.meshinjector.engine.revisions;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.config.InjectionConfig.MeshNamespaceLabels;
import io.meshinjector.engine.rules.IstioNamespaceLabels;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The revision of one opted-in pod: its own {@value RevisionNames#REV} wins over its namespace's
 * (as its {@code inject} does; Istio does the opposite, istio#37088), and with neither it follows
 * the default tag. In a flavour whose mesh names revisions by namespace label ({@link
 * MeshNamespaceLabels#ISTIO}), the namespace's label comes before its annotation, read as istiod
 * reads it ({@link IstioNamespaceLabels}). The same function routes a namespace's label and answers
 * {@code explain}.
 */
public final class RouteResolver {
  private final MeshNamespaceLabels mesh;

  /**
   * @param mesh whose namespace labels name a revision besides {@value RevisionNames#REV}
   */
  public RouteResolver(MeshNamespaceLabels mesh) {
    this.mesh = Objects.requireNonNull(mesh, "mesh");
  }

  /** The resolver of a config's flavour. */
  public static RouteResolver of(InjectionConfig injection) {
    return new RouteResolver(injection.meshNamespaceLabels());
  }

  /**
   * The route of a pod with {@code podAnnotations} in {@code namespace}.
   *
   * @param self the asking release's revision: where every name goes when {@code revisions} is not
   *     {@link Revisions#known() known}
   */
  public Route route(
      Map<String, String> podAnnotations, Namespace namespace, Revisions revisions, String self) {
    String podRev =
        podAnnotations == null ? null : emptyToNull(podAnnotations.get(RevisionNames.REV));
    if (podRev != null) {
      return resolveName(podRev, "the pod's " + RevisionNames.REV, revisions, self);
    }
    Asked asked = namespaceAsks(namespace);
    return resolveName(asked.name(), asked.from(), revisions, self);
  }

  /**
   * What this revision does with an opted-in pod that reached it through its catch-all entry
   * ({@link Unrouted}).
   */
  public Unrouted unrouted(
      Map<String, String> podAnnotations, Namespace namespace, Revisions revisions, String self) {
    return Unrouted.judge(podAnnotations, namespace, revisions, self, this);
  }

  /** What a namespace asks for, and where it says so. */
  public record Asked(String name, String from) {}

  /**
   * The name a namespace asks for: in the Istio flavour its Istio labels first; its {@value
   * RevisionNames#REV} annotation; else the default tag.
   */
  public Asked namespaceAsks(Namespace namespace) {
    String ns = namespace == null ? "?" : namespace.getMetadata().getName();
    if (mesh == MeshNamespaceLabels.ISTIO && namespace != null) {
      Optional<String> labelled = IstioNamespaceLabels.names(namespace);
      if (labelled.isPresent()) {
        return new Asked(
            labelled.get(), "namespace " + ns + "'s " + IstioNamespaceLabels.namedBy(namespace));
      }
    }
    Map<String, String> annotations =
        namespace == null ? null : namespace.getMetadata().getAnnotations();
    String nsRev = annotations == null ? null : emptyToNull(annotations.get(RevisionNames.REV));
    if (nsRev != null) {
      return new Asked(nsRev, "namespace " + ns + "'s " + RevisionNames.REV);
    }
    return new Asked(RevisionNames.DEFAULT, "no " + RevisionNames.REV + ": the default tag");
  }

  /** The route of {@code name}, said to come {@code from} somewhere, for messages. */
  public Route resolveName(String name, String from, Revisions revisions, String self) {
    Optional<String> problem = RevisionNames.problem(name);
    if (problem.isPresent()) {
      return new Route.Unknown(name, from, from + " names no revision: " + problem.get());
    }
    if (!revisions.known()) {
      return new Route.Resolved(name, from, self, false, null);
    }
    Optional<String> revision = revisions.revisionOf(name);
    if (revision.isEmpty()) {
      String target = revisions.tags().get(name);
      String why =
          target != null
              ? from
                  + " names tag "
                  + name
                  + ", which points at revision "
                  + target
                  + ", and no release serves it"
              : from
                  + " names revision "
                  + name
                  + ", which no release serves (served: "
                  + String.join(", ", revisions.revisions().keySet())
                  + (revisions.tags().isEmpty()
                      ? ""
                      : "; tags: " + String.join(", ", revisions.tags().keySet()))
                  + ")";
      return new Route.Unknown(name, from, why);
    }
    return new Route.Resolved(
        name,
        from,
        revision.get(),
        revisions.tags().containsKey(name),
        revisions.revisions().get(revision.get()));
  }

  /**
   * Absent or empty means "not set"; anything else is taken as written, so this reads the value
   * exactly as the webhook configurations' match conditions compare it.
   */
  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
