package io.meshinjector.engine.rules;

import io.fabric8.kubernetes.api.model.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A namespace's Istio labels, read as istiod's webhook configurations select on them: {@value
 * #INJECTION} present decides alone ({@code enabled}: opted in, following the tag {@code default};
 * any other value: opted out, which no revision's entry selects); otherwise a non-empty {@value
 * #REV} opts the namespace in and names its revision or tag. A namespace carrying both is resolved
 * the same way, and {@code check} says so, as {@code istioctl analyze} does.
 */
public final class IstioNamespaceLabels {
  /** Istio's first opt-in label; its revision is the default tag's. */
  public static final String INJECTION = "istio-injection";

  /** Istio's revision label, which opts the namespace in too. */
  public static final String REV = "istio.io/rev";

  private IstioNamespaceLabels() {}

  /** The inject setting the labels give, or empty when the namespace carries neither. */
  public static Optional<InjectAnnotation> inject(Namespace ns) {
    Map<String, String> labels = labels(ns);
    String injection = labels.get(INJECTION);
    if (injection != null) {
      return Optional.of(
          new InjectAnnotation("enabled".equals(injection), "label " + INJECTION, null));
    }
    String rev = labels.get(REV);
    if (rev != null && !rev.isEmpty()) {
      return Optional.of(new InjectAnnotation(true, "label " + REV + "=" + rev, null));
    }
    return Optional.empty();
  }

  /**
   * The revision or tag the labels name: {@code default} under {@value #INJECTION}{@code :
   * enabled}, else {@value #REV}; empty when they name none (no label, or {@value #INJECTION} with
   * another value).
   */
  public static Optional<String> names(Namespace ns) {
    Map<String, String> labels = labels(ns);
    String injection = labels.get(INJECTION);
    if (injection != null) {
      return "enabled".equals(injection) ? Optional.of("default") : Optional.empty();
    }
    String rev = labels.get(REV);
    return rev == null || rev.isEmpty() ? Optional.empty() : Optional.of(rev);
  }

  /** The label that {@link #names} read, for messages. */
  public static String namedBy(Namespace ns) {
    return labels(ns).containsKey(INJECTION)
        ? "label " + INJECTION + "=" + labels(ns).get(INJECTION)
        : "label " + REV;
  }

  /**
   * What {@code check} warns about: both labels on one namespace, and a label that disagrees with
   * the namespace's {@code mesh-injector.io/rev} annotation ({@code revAnnotation}, the key).
   */
  public static List<String> conflicts(Namespace ns, String revAnnotation) {
    Map<String, String> labels = labels(ns);
    String name = ns.getMetadata().getName();
    List<String> out = new ArrayList<>();
    String injection = labels.get(INJECTION);
    String rev = labels.get(REV);
    if (injection != null && rev != null) {
      out.add(
          "namespace "
              + name
              + " carries both "
              + INJECTION
              + "="
              + injection
              + " and "
              + REV
              + "="
              + rev
              + "; as with istiod, "
              + INJECTION
              + " decides ("
              + ("enabled".equals(injection) ? "the tag default" : "not injected")
              + "). Keep one: kubectl label namespace "
              + name
              + " "
              + INJECTION
              + "- (or "
              + REV
              + "-)");
    }
    Map<String, String> annotations = ns.getMetadata().getAnnotations();
    String ours = annotations == null ? null : annotations.get(revAnnotation);
    Optional<String> named = names(ns);
    if (ours != null && !ours.isEmpty() && named.isPresent() && !named.get().equals(ours)) {
      out.add(
          "namespace "
              + name
              + "'s "
              + namedBy(ns)
              + " names "
              + named.get()
              + " and its annotation "
              + revAnnotation
              + " names "
              + ours
              + "; the label wins. Keep one");
    }
    return out;
  }

  private static Map<String, String> labels(Namespace ns) {
    Map<String, String> labels = ns == null ? null : ns.getMetadata().getLabels();
    return labels == null ? Map.of() : labels;
  }
}
