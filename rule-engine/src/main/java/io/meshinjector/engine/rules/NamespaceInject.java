package io.meshinjector.engine.rules;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.config.InjectionConfig.MeshNamespaceLabels;
import io.meshinjector.engine.decision.Annotations;
import java.util.Map;
import java.util.Optional;

/**
 * A namespace's inject setting: its {@code inject} annotation (either spelling) and, in a flavour
 * whose mesh opts namespaces in by label ({@link MeshNamespaceLabels#ISTIO}), those labels. When
 * both speak and disagree, {@code disabled} wins, as between the annotation's two spellings, and
 * the conflict is a warning. The gate, the label writer and {@code check} all read it here.
 */
public final class NamespaceInject {
  private NamespaceInject() {}

  /**
   * The setting in force, or empty when nothing on the namespace speaks.
   *
   * @throws PodAnnotations.InvalidAnnotation for an invalid annotation value, naming its key
   */
  public static Optional<InjectAnnotation> of(Namespace ns, MeshNamespaceLabels mesh) {
    String owner = "namespace " + ns.getMetadata().getName();
    Optional<InjectAnnotation> annotated =
        PodAnnotations.inject(ns.getMetadata().getAnnotations(), owner);
    return combine(owner, annotated, labelled(ns, mesh));
  }

  /**
   * Whether the namespace asks for injection, reading an invalid annotation value as not enabled
   * (the gate refuses its pods, naming it).
   */
  public static boolean enabled(Namespace ns, MeshNamespaceLabels mesh) {
    Map<String, String> annotations = ns.getMetadata().getAnnotations();
    Optional<InjectAnnotation> annotated = Optional.empty();
    if (annotations != null
        && (annotations.containsKey(Annotations.INJECT)
            || annotations.containsKey(Annotations.INJECT_PREFIXED))) {
      annotated =
          Optional.of(
              new InjectAnnotation(
                  InjectAnnotation.enabledBy(annotations), "the inject annotation", null));
    }
    return combine("namespace " + ns.getMetadata().getName(), annotated, labelled(ns, mesh))
        .map(InjectAnnotation::enabled)
        .orElse(false);
  }

  private static Optional<InjectAnnotation> labelled(Namespace ns, MeshNamespaceLabels mesh) {
    return mesh == MeshNamespaceLabels.ISTIO ? IstioNamespaceLabels.inject(ns) : Optional.empty();
  }

  private static Optional<InjectAnnotation> combine(
      String owner, Optional<InjectAnnotation> annotated, Optional<InjectAnnotation> labelled) {
    if (labelled.isEmpty()) {
      return annotated;
    }
    if (annotated.isEmpty()) {
      return labelled;
    }
    InjectAnnotation a = annotated.get();
    InjectAnnotation l = labelled.get();
    String both = a.key() + " and " + l.key();
    if (a.enabled() == l.enabled()) {
      return Optional.of(new InjectAnnotation(a.enabled(), both, a.conflict()));
    }
    String conflict =
        owner
            + " carries "
            + a.describe()
            + " and "
            + l.describe()
            + "; they disagree, so disabled wins. Keep one";
    return Optional.of(new InjectAnnotation(false, both, conflict));
  }
}
