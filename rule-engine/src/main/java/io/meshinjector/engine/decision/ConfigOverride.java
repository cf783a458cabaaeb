package io.meshinjector.engine.decision;

import java.util.Objects;

/**
 * One of the mesh's own per-workload configuration annotations that applies to a pod, and where it
 * came from.
 *
 * @param annotation the annotation's key
 * @param written its text as the pod or namespace carries it
 * @param value the text the pod renders (canonical where the mesh's injector writes it so)
 * @param fromNamespace whether the pod inherits it from its namespace (the pod lacks it)
 */
public record ConfigOverride(
    String annotation, String written, String value, boolean fromNamespace) {
  public ConfigOverride {
    Objects.requireNonNull(annotation, "annotation");
    Objects.requireNonNull(written, "written");
    Objects.requireNonNull(value, "value");
  }

  /** {@code pod} or {@code namespace}, for explain. */
  public String source() {
    return fromNamespace ? "namespace" : "pod";
  }

  @Override
  public String toString() {
    return annotation + "=" + written + " (" + source() + ")";
  }
}
