package io.meshinjector.engine.repair;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads from a pod's status whether its redirect step failed: the pod is one this injector
 * injected, is not terminating, is not Ready, and its iptables init container or validator
 * terminated with a failure in its current or last state (the last state is where a crash-looping
 * init container's exit stays while the kubelet waits to restart it).
 */
public final class BrokenRedirect {
  /**
   * The annotation the injector writes on every pod it injects, in both flavours
   * (injector-templates' {@code metadata.yaml}): a pod without it is some other injector's, and not
   * ours to delete.
   */
  public static final String INJECTED_ANNOTATION = "mesh-injector.io/injector-version";

  private BrokenRedirect() {}

  public static Optional<Breakage> find(Pod pod) {
    if (pod == null || pod.getMetadata() == null || pod.getStatus() == null) {
      return Optional.empty();
    }
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    if (annotations == null || !annotations.containsKey(INJECTED_ANNOTATION)) {
      return Optional.empty();
    }
    if (pod.getMetadata().getDeletionTimestamp() != null || ready(pod)) {
      return Optional.empty();
    }
    List<ContainerStatus> statuses = new ArrayList<>();
    if (pod.getStatus().getInitContainerStatuses() != null) {
      statuses.addAll(pod.getStatus().getInitContainerStatuses());
    }
    // a validator appended after the pod's own init containers is still an init container; the
    // regular containers are looked at too, for a template that puts the step there
    if (pod.getStatus().getContainerStatuses() != null) {
      statuses.addAll(pod.getStatus().getContainerStatuses());
    }
    for (ContainerStatus status : statuses) {
      Optional<Flavour> flavour = Flavour.ofContainer(status.getName());
      if (flavour.isEmpty()) {
        continue;
      }
      for (ContainerState state : new ContainerState[] {status.getState(), status.getLastState()}) {
        ContainerStateTerminated t = state == null ? null : state.getTerminated();
        if (t != null
            && t.getExitCode() != null
            && flavour.get().broken(status.getName(), t.getExitCode())) {
          return Optional.of(
              new Breakage(
                  pod.getMetadata().getNamespace(),
                  pod.getMetadata().getName(),
                  pod.getMetadata().getUid(),
                  pod.getSpec() == null ? null : pod.getSpec().getNodeName(),
                  flavour.get(),
                  status.getName(),
                  t.getExitCode(),
                  t.getMessage() != null && !t.getMessage().isBlank()
                      ? t.getMessage()
                      : t.getReason(),
                  owner(pod)));
        }
      }
    }
    return Optional.empty();
  }

  /** A Ready pod serves: it is never touched, whatever its init containers once did. */
  static boolean ready(Pod pod) {
    List<PodCondition> conditions = pod.getStatus().getConditions();
    return conditions != null
        && conditions.stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static Breakage.Owner owner(Pod pod) {
    List<OwnerReference> refs = pod.getMetadata().getOwnerReferences();
    if (refs == null) {
      return null;
    }
    return refs.stream()
        .filter(r -> Boolean.TRUE.equals(r.getController()))
        .findFirst()
        .map(r -> new Breakage.Owner(r.getKind(), r.getName(), r.getUid()))
        .orElse(null);
  }
}
