package io.meshinjector.engine.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which pods are candidates for injection at all.
 *
 * @param excludedNamespaces never injected, whatever their annotations say
 * @param proxyContainerName a pod that has a container of this name is already injected
 * @param otherMeshContainers containers whose presence means another mesh owns the pod
 * @param optOutAnnotations pod annotations (key: value) that opt a pod out, such as the mesh's own
 *     {@code sidecar.istio.io/inject: "false"}
 * @param refusedAnnotations pod annotations refused at admission: in the mesh's own injector they
 *     would change images, commands or privileges, which annotations never do here
 * @param podValues template values read from the pod, by value name
 */
public record InjectionConfig(
    Set<String> excludedNamespaces,
    String proxyContainerName,
    List<String> otherMeshContainers,
    Map<String, String> optOutAnnotations,
    List<String> refusedAnnotations,
    Map<String, PodValue> podValues) {
  public InjectionConfig {
    if (proxyContainerName == null || proxyContainerName.isBlank()) {
      throw new IllegalArgumentException("injection.proxyContainerName must not be empty");
    }
    excludedNamespaces = excludedNamespaces == null ? Set.of() : Set.copyOf(excludedNamespaces);
    otherMeshContainers =
        otherMeshContainers == null ? List.of() : List.copyOf(otherMeshContainers);
    optOutAnnotations =
        optOutAnnotations == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(optOutAnnotations));
    refusedAnnotations = refusedAnnotations == null ? List.of() : List.copyOf(refusedAnnotations);
    podValues =
        podValues == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(podValues));
  }

  /** Without a mesh flavour's opt-outs, refusals and pod values. */
  public InjectionConfig(
      Set<String> excludedNamespaces, String proxyContainerName, List<String> otherMeshContainers) {
    this(excludedNamespaces, proxyContainerName, otherMeshContainers, null, null, null);
  }
}
