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
 * @param proxyAwaitFrom where the pod may decide proxy-await in the mesh's own terms; null for
 *     nowhere but {@code mesh-injector.io/proxy-await}
 * @param meshAnnotations whose per-workload configuration annotations the engine and templates read
 * @param refuseImageAndUser whether a pod carrying one of {@code imageAndUserAnnotations} is
 *     refused (else it does what it does in the mesh's own injector)
 * @param imageAndUserAnnotations the mesh's annotations that choose an image or the proxy's user
 * @param meshNamespaceLabels whose namespace labels opt a namespace in and name its revision, as
 *     well as the {@code inject} and {@code mesh-injector.io/rev} annotations
 */
public record InjectionConfig(
    Set<String> excludedNamespaces,
    String proxyContainerName,
    List<String> otherMeshContainers,
    Map<String, String> optOutAnnotations,
    List<String> refusedAnnotations,
    Map<String, PodValue> podValues,
    AwaitField proxyAwaitFrom,
    MeshAnnotations meshAnnotations,
    boolean refuseImageAndUser,
    List<String> imageAndUserAnnotations,
    MeshNamespaceLabels meshNamespaceLabels) {

  /** Whose per-workload configuration annotations apply ({@code injection.meshAnnotations}). */
  public enum MeshAnnotations {
    LINKERD,
    NONE
  }

  /**
   * Whose namespace labels opt a namespace in and name its revision ({@code
   * injection.meshNamespaceLabels}): Istio's {@code istio-injection} and {@code istio.io/rev}, read
   * as istiod reads them, or none.
   */
  public enum MeshNamespaceLabels {
    ISTIO,
    NONE
  }

  /**
   * A boolean field of a pod annotation that holds a map (Istio's {@code proxy.istio.io/config}
   * with {@code holdApplicationUntilProxyStarts}): when the pod sets it, it decides proxy-await.
   */
  public record AwaitField(String annotation, String field) {
    public AwaitField {
      if (annotation == null || annotation.isBlank() || field == null || field.isBlank()) {
        throw new IllegalArgumentException(
            "injection.proxyAwaitFrom needs both annotation and field, or neither");
      }
    }
  }

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
    meshAnnotations = meshAnnotations == null ? MeshAnnotations.NONE : meshAnnotations;
    imageAndUserAnnotations =
        imageAndUserAnnotations == null ? List.of() : List.copyOf(imageAndUserAnnotations);
    meshNamespaceLabels =
        meshNamespaceLabels == null ? MeshNamespaceLabels.NONE : meshNamespaceLabels;
  }
}
