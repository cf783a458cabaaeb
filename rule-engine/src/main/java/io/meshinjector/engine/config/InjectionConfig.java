package io.meshinjector.engine.config;

import java.util.List;
import java.util.Set;

/**
 * Which pods are candidates for injection at all.
 *
 * @param excludedNamespaces never injected, whatever their annotations say
 * @param otherMeshContainers containers whose presence means another mesh owns the pod
 */
public record InjectionConfig(Set<String> excludedNamespaces, List<String> otherMeshContainers) {
  public InjectionConfig {
    excludedNamespaces = excludedNamespaces == null ? Set.of() : Set.copyOf(excludedNamespaces);
    otherMeshContainers =
        otherMeshContainers == null ? List.of() : List.copyOf(otherMeshContainers);
  }
}
