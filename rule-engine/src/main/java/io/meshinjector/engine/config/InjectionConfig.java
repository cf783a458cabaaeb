package io.meshinjector.engine.config;

import java.util.List;
import java.util.Set;

/**
 * Which pods are candidates for injection at all.
 *
 * @param excludedNamespaces never injected, whatever their annotations say
 * @param proxyContainerName a pod that has a container of this name is already injected
 * @param otherMeshContainers containers whose presence means another mesh owns the pod
 */
public record InjectionConfig(
    Set<String> excludedNamespaces, String proxyContainerName, List<String> otherMeshContainers) {
  public InjectionConfig {
    if (proxyContainerName == null || proxyContainerName.isBlank()) {
      throw new IllegalArgumentException("injection.proxyContainerName must not be empty");
    }
    excludedNamespaces = excludedNamespaces == null ? Set.of() : Set.copyOf(excludedNamespaces);
    otherMeshContainers =
        otherMeshContainers == null ? List.of() : List.copyOf(otherMeshContainers);
  }
}
