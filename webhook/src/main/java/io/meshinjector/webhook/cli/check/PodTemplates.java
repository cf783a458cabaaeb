package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The pod templates of the cluster's workloads that name a revision or tag ({@value
 * RevisionNames#REV}), and which Deployment owns each ReplicaSet: Deployments, StatefulSets,
 * DaemonSets, Jobs (but a CronJob's, which its CronJob stands for), CronJobs, and ReplicaSets of no
 * Deployment. One streamed list per kind; a kind that cannot be listed is named, not fatal.
 */
final class PodTemplates {
  /**
   * A template that names a revision or tag.
   *
   * @param inject its inject annotations, either spelling, for whether it opts in
   */
  record Named(String namespace, String kind, String name, String rev, Map<String, String> inject) {
    String describe() {
      return namespace + "/" + kind + "/" + name;
    }
  }

  private final List<Named> named = new ArrayList<>();
  private final Map<String, String> deploymentOfReplicaSet = new HashMap<>();
  private final List<String> unread = new ArrayList<>();

  private PodTemplates() {}

  static PodTemplates read(KubernetesClient client) {
    PodTemplates t = new PodTemplates();
    t.scan(
        client,
        "deployments",
        "apis/apps/v1/deployments",
        Deployment.class,
        d -> d.getSpec() == null ? null : d.getSpec().getTemplate());
    t.scan(
        client,
        "statefulsets",
        "apis/apps/v1/statefulsets",
        StatefulSet.class,
        s -> s.getSpec() == null ? null : s.getSpec().getTemplate());
    t.scan(
        client,
        "daemonsets",
        "apis/apps/v1/daemonsets",
        DaemonSet.class,
        d -> d.getSpec() == null ? null : d.getSpec().getTemplate());
    t.scan(
        client,
        "replicasets",
        "apis/apps/v1/replicasets",
        ReplicaSet.class,
        rs -> {
          Optional<String> deployment = controller(rs, "Deployment");
          if (deployment.isPresent()) {
            t.deploymentOfReplicaSet.put(
                key(rs.getMetadata().getNamespace(), rs.getMetadata().getName()), deployment.get());
            // its Deployment's template stands for it
            return null;
          }
          return rs.getSpec() == null ? null : rs.getSpec().getTemplate();
        });
    t.scan(
        client,
        "jobs",
        "apis/batch/v1/jobs",
        Job.class,
        j ->
            controller(j, "CronJob").isPresent() || j.getSpec() == null
                ? null
                : j.getSpec().getTemplate());
    t.scan(
        client,
        "cronjobs",
        "apis/batch/v1/cronjobs",
        CronJob.class,
        c ->
            c.getSpec() == null
                    || c.getSpec().getJobTemplate() == null
                    || c.getSpec().getJobTemplate().getSpec() == null
                ? null
                : c.getSpec().getJobTemplate().getSpec().getTemplate());
    return t;
  }

  private <T extends HasMetadata> void scan(
      KubernetesClient client,
      String what,
      String path,
      Class<T> type,
      Function<T, PodTemplateSpec> template) {
    try {
      ClusterSnapshot.forEach(
          what,
          client,
          path,
          type,
          o -> {
            PodTemplateSpec t = template.apply(o);
            Map<String, String> a =
                t == null || t.getMetadata() == null
                    ? Map.of()
                    : ClusterChecks.mapOf(t.getMetadata().getAnnotations());
            String rev = a.get(RevisionNames.REV);
            if (rev != null && !rev.isEmpty()) {
              named.add(
                  new Named(
                      o.getMetadata().getNamespace(),
                      o.getKind() == null ? type.getSimpleName() : o.getKind(),
                      o.getMetadata().getName(),
                      rev,
                      Routing.injectOf(a)));
            }
          });
    } catch (ClusterReadException e) {
      unread.add(e.getMessage());
    }
  }

  private static Optional<String> controller(HasMetadata o, String kind) {
    List<OwnerReference> owners = o.getMetadata().getOwnerReferences();
    if (owners == null) {
      return Optional.empty();
    }
    return owners.stream()
        .filter(
            r -> r != null && Boolean.TRUE.equals(r.getController()) && kind.equals(r.getKind()))
        .map(OwnerReference::getName)
        .findFirst();
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  /** The templates that name a revision or tag, in the order listed. */
  List<Named> named() {
    return named;
  }

  /** The Deployment that owns a ReplicaSet, when the ReplicaSets could be read and one does. */
  Optional<String> deploymentOf(String namespace, String replicaSet) {
    return Optional.ofNullable(deploymentOfReplicaSet.get(key(namespace, replicaSet)));
  }

  /** What could not be listed, one line each; empty when every kind was read. */
  List<String> unread() {
    return unread;
  }
}
