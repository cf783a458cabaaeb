package io.meshinjector.engine.rules;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.config.PodValue;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.RefusalReason;
import io.meshinjector.engine.decision.SkipReason;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.linkerd.LinkerdAnnotation;
import io.meshinjector.engine.linkerd.LinkerdConfig;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The mesh flavour's own pod annotations ({@code injection.optOutAnnotations}, {@code
 * refusedAnnotations}, {@code podValues}): the names come from the flavour's config, so no mesh is
 * named here.
 */
public final class FlavourAnnotations {
  private FlavourAnnotations() {}

  /**
   * A skip when the pod carries one of the mesh's opt-out annotations, or (Linkerd's {@code
   * linkerd.io/inject: disabled}) its namespace does and the pod says nothing of injection itself.
   */
  public static Optional<Outcome> optOut(
      Pod pod, Namespace namespace, InjectionConfig config, Consumer<TraceStep> trace) {
    Map<String, String> a = annotations(pod);
    if (config.meshAnnotations() == InjectionConfig.MeshAnnotations.LINKERD) {
      boolean podDecides =
          a.containsKey(Annotations.INJECT) || a.containsKey(Annotations.INJECT_PREFIXED);
      String by = LinkerdConfig.optedOutBy(pod, namespace, podDecides);
      if (by != null) {
        String why =
            LinkerdAnnotation.INJECT
                + ": disabled on the "
                + by
                + " opts the pod out (Linkerd's"
                + " own opt-out)";
        trace.accept(new TraceStep("gate", why));
        return Optional.of(new Outcome.Skip(SkipReason.INJECTION_DISABLED, why));
      }
    }
    for (Map.Entry<String, String> e : config.optOutAnnotations().entrySet()) {
      String v = a.get(e.getKey());
      if (v != null && v.trim().equalsIgnoreCase(e.getValue())) {
        String why = "annotation " + e.getKey() + ": \"" + v + "\" opts the pod out";
        trace.accept(new TraceStep("gate", why));
        return Optional.of(new Outcome.Skip(SkipReason.INJECTION_DISABLED, why));
      }
    }
    return Optional.empty();
  }

  /**
   * A refusal when the pod asks, through an annotation, for what annotations never change here
   * (images, commands, privileges), or gives a pod value outside its pattern.
   */
  public static Optional<Outcome> refusal(
      Pod pod, Namespace namespace, InjectionConfig config, Consumer<TraceStep> trace) {
    Map<String, String> a = annotations(pod);
    Optional<Outcome> imageOrUser = imageOrUserRefusal(a, namespace, config, trace);
    if (imageOrUser.isPresent()) {
      return imageOrUser;
    }
    for (String key : config.refusedAnnotations()) {
      if (a.containsKey(key)) {
        String why =
            "annotation "
                + key
                + " is refused: it would change what is injected (image, command, mounts or"
                + " privileges), which only the injector's config sets; remove it from the pod";
        trace.accept(new TraceStep("gate", why));
        return Optional.of(new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, why));
      }
    }
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    for (PodValue v : config.podValues().values()) {
      for (PodValue.Source s : v.from()) {
        String value = (s.label() ? labels : a).get(s.key());
        String problem = value == null ? null : v.problem(value);
        if (problem != null) {
          String why = s + " has invalid value '" + value + "': " + problem;
          trace.accept(new TraceStep("gate", why));
          return Optional.of(new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, why));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Under {@code injection.imageAndUserOverrides: refuse}, a refusal when the pod carries (or, for
   * Linkerd's, inherits from its namespace) an annotation that would choose an image or the proxy's
   * user.
   */
  private static Optional<Outcome> imageOrUserRefusal(
      Map<String, String> a,
      Namespace namespace,
      InjectionConfig config,
      Consumer<TraceStep> trace) {
    if (!config.refuseImageAndUser()) {
      return Optional.empty();
    }
    Map<String, String> ns =
        namespace == null
                || namespace.getMetadata() == null
                || namespace.getMetadata().getAnnotations() == null
            ? Map.of()
            : namespace.getMetadata().getAnnotations();
    boolean inherits = config.meshAnnotations() == InjectionConfig.MeshAnnotations.LINKERD;
    for (String key : config.imageAndUserAnnotations()) {
      String where = "the pod";
      String value = a.get(key);
      if (value == null && inherits && ns.containsKey(key)) {
        value = ns.get(key);
        where = "namespace " + namespace.getMetadata().getName();
      }
      if (value != null) {
        String why =
            "annotation "
                + key
                + ": '"
                + value
                + "' on "
                + where
                + " is refused: this injector is configured to refuse annotations that choose an"
                + " image or the proxy's user (injection.imageAndUserOverrides: refuse); remove it";
        trace.accept(new TraceStep("gate", why));
        return Optional.of(new Outcome.Refuse(RefusalReason.INVALID_ANNOTATION, why));
      }
    }
    return Optional.empty();
  }

  private static Map<String, String> annotations(Pod pod) {
    ObjectMeta m = pod.getMetadata();
    return m == null || m.getAnnotations() == null ? Map.of() : m.getAnnotations();
  }
}
