package io.meshinjector.engine.decision;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The mesh's per-workload configuration annotations that apply to one pod, pod's first, then those
 * it inherits from its namespace, in the catalogue's order. Empty for a flavour without them.
 */
public record ConfigOverrides(List<ConfigOverride> applied) {
  public static final ConfigOverrides NONE = new ConfigOverrides(List.of());

  public ConfigOverrides {
    applied = List.copyOf(applied);
  }

  public boolean isEmpty() {
    return applied.isEmpty();
  }

  /**
   * The value that applies for {@code annotation}: the pod's, else its namespace's. (Only the
   * additional env list may hold both; see {@link #all}.)
   */
  public Optional<String> value(String annotation) {
    ConfigOverride found = null;
    for (ConfigOverride o : applied) {
      if (o.annotation().equals(annotation) && (found == null || found.fromNamespace())) {
        found = o;
      }
    }
    return Optional.ofNullable(found).map(ConfigOverride::value);
  }

  /** Every override of {@code annotation}, the namespace's before the pod's. */
  public List<ConfigOverride> all(String annotation) {
    List<ConfigOverride> out = new ArrayList<>();
    for (ConfigOverride o : applied) {
      if (o.annotation().equals(annotation) && o.fromNamespace()) {
        out.add(o);
      }
    }
    for (ConfigOverride o : applied) {
      if (o.annotation().equals(annotation) && !o.fromNamespace()) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * The namespace's annotations that apply, as the pod is to carry them (Linkerd writes them onto
   * the pod: the mesh CNI plugin reads its skip ports there, not on the namespace).
   */
  public Map<String, String> inherited() {
    Map<String, String> out = new LinkedHashMap<>();
    for (ConfigOverride o : applied) {
      // a list the pod has its own of (the additional env merges both) stays the pod's
      boolean podHasIt =
          applied.stream()
              .anyMatch(p -> !p.fromNamespace() && p.annotation().equals(o.annotation()));
      if (o.fromNamespace() && !podHasIt) {
        out.put(o.annotation(), o.written());
      }
    }
    return out;
  }
}
