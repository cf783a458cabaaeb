package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.check.ProxyDrift.Workload;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.rules.InjectGate;
import io.meshinjector.engine.rules.NamespaceInject;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the revisions checks keep of the running pods, a few strings each: the injected ones (which
 * revision they carry) and those of opted-in namespaces that run without the proxy although the
 * webhook would inject them now. Fed by the one list of running pods {@code check} makes for the
 * node checks, or, for {@code check --retire}, by a list of its own.
 */
final class RunningPods implements Consumer<Pod> {
  /**
   * One pod.
   *
   * @param controller its controller as its owner reference names it (a ReplicaSet, not yet its
   *     Deployment), or the pod itself
   * @param injected whether the webhook injected it ({@value Annotations#DECISION})
   * @param revision the revision that injected it; null when not injected or injected before
   *     revisions were recorded
   * @param rev its own {@value RevisionNames#REV}; null when none
   * @param missingProxy whether it runs without the proxy although the webhook would inject it
   */
  record RunningPod(
      String namespace,
      String name,
      Workload controller,
      boolean injected,
      String revision,
      String rev,
      boolean missingProxy) {
    /** The annotations a route reads. */
    Map<String, String> routing() {
      return rev == null ? Map.of() : Map.of(RevisionNames.REV, rev);
    }
  }

  private final InjectGate gate;
  private final InjectionConfig.MeshNamespaceLabels mesh;
  private final Function<String, Optional<Namespace>> namespaces;
  private final List<RunningPod> pods = new ArrayList<>();
  private boolean listed;

  /**
   * @param namespaces the namespaces as check read them, by name
   */
  RunningPods(InjectionConfig injection, Function<String, Optional<Namespace>> namespaces) {
    this.gate = new InjectGate(injection);
    this.mesh = injection.meshNamespaceLabels();
    this.namespaces = namespaces;
  }

  /**
   * Reads every pod that is not finished, for {@code check --retire}: a Pending pod already carries
   * the revision that injected it.
   *
   * @throws ClusterReadException when the list fails
   */
  void listNotFinished(KubernetesClient client) {
    ClusterSnapshot.forEach(
        "pods", client, "api/v1/pods", Map.of("fieldSelector", NOT_FINISHED), Pod.class, this);
    listed();
  }

  static final String NOT_FINISHED = "status.phase!=Succeeded,status.phase!=Failed";

  @Override
  public void accept(Pod pod) {
    Map<String, String> a = ClusterChecks.mapOf(pod.getMetadata().getAnnotations());
    // a pod being deleted is already being replaced; a mirror pod is the kubelet's, never admitted
    if (pod.getMetadata().getDeletionTimestamp() != null
        || a.containsKey("kubernetes.io/config.mirror")) {
      return;
    }
    boolean injected = a.containsKey(Annotations.DECISION);
    boolean missingProxy = !injected && missingProxy(pod);
    if (!injected && !missingProxy) {
      return;
    }
    String rev = a.get(RevisionNames.REV);
    pods.add(
        new RunningPod(
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            controller(pod),
            injected,
            injected ? a.get(RevisionNames.REVISION) : null,
            rev == null || rev.isEmpty() ? null : rev,
            missingProxy));
  }

  /**
   * Whether the webhook would inject (or refuse) this pod were it created now: its namespace opted
   * in, it did not opt out, it has no proxy and no other mesh's parts (the gate's own words).
   */
  private boolean missingProxy(Pod pod) {
    Optional<Namespace> ns = namespaces.apply(pod.getMetadata().getNamespace());
    if (ns.isEmpty() || !NamespaceInject.enabled(ns.get(), mesh)) {
      return false;
    }
    Optional<Outcome> gated = gate.check(pod, ns.get(), t -> {}, w -> {});
    return gated.isEmpty() || gated.get() instanceof Outcome.Refuse;
  }

  private static Workload controller(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    if (owners != null) {
      for (OwnerReference o : owners) {
        if (o != null && Boolean.TRUE.equals(o.getController())) {
          return new Workload(o.getKind(), o.getName());
        }
      }
    }
    return new Workload("Pod", pod.getMetadata().getName());
  }

  /** Called once the list went through whole. */
  void listed() {
    listed = true;
  }

  /** Whether every running pod was read; a partial list proves nothing. */
  boolean wasListed() {
    return listed;
  }

  List<RunningPod> pods() {
    return pods;
  }
}
