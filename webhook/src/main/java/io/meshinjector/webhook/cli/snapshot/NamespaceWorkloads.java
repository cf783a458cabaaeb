package io.meshinjector.webhook.cli.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * The workloads of one namespace as manifest documents, for {@code explain -n NS}: Deployments,
 * StatefulSets, DaemonSets, Jobs and CronJobs, in that order, each kind by name. A Job that a
 * CronJob made is left out: its CronJob stands for it, and listing both would count its pods twice.
 * Pods and ReplicaSets are left out too: their controllers stand for them.
 */
public final class NamespaceWorkloads {
  private NamespaceWorkloads() {}

  /**
   * @throws ClusterReadException when a list fails, naming it and the cause
   */
  public static List<JsonNode> list(
      KubernetesClient client, String namespace, ObjectMapper mapper) {
    List<JsonNode> out = new ArrayList<>();
    add(
        out,
        mapper,
        "apps/v1",
        "Deployment",
        list(
            "deployments",
            namespace,
            () -> client.apps().deployments().inNamespace(namespace).list().getItems()));
    add(
        out,
        mapper,
        "apps/v1",
        "StatefulSet",
        list(
            "statefulsets",
            namespace,
            () -> client.apps().statefulSets().inNamespace(namespace).list().getItems()));
    add(
        out,
        mapper,
        "apps/v1",
        "DaemonSet",
        list(
            "daemonsets",
            namespace,
            () -> client.apps().daemonSets().inNamespace(namespace).list().getItems()));
    add(
        out,
        mapper,
        "batch/v1",
        "Job",
        list(
                "jobs",
                namespace,
                () -> client.batch().v1().jobs().inNamespace(namespace).list().getItems())
            .stream()
            .filter(j -> !madeByCronJob(j))
            .toList());
    add(
        out,
        mapper,
        "batch/v1",
        "CronJob",
        list(
            "cronjobs",
            namespace,
            () -> client.batch().v1().cronjobs().inNamespace(namespace).list().getItems()));
    return out;
  }

  private static boolean madeByCronJob(Job job) {
    List<OwnerReference> owners = job.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream()
            .anyMatch(o -> Boolean.TRUE.equals(o.getController()) && "CronJob".equals(o.getKind()));
  }

  private static void add(
      List<JsonNode> out,
      ObjectMapper mapper,
      String apiVersion,
      String kind,
      List<? extends HasMetadata> items) {
    items.stream()
        .sorted(Comparator.comparing(o -> o.getMetadata().getName()))
        .forEach(
            o -> {
              ObjectNode doc = mapper.valueToTree(o);
              // list items come without them from the API server
              doc.put("apiVersion", apiVersion);
              doc.put("kind", kind);
              out.add(doc);
            });
  }

  private static <T> List<T> list(String what, String namespace, Supplier<List<T>> lister) {
    try {
      return lister.get();
    } catch (KubernetesClientException e) {
      throw new ClusterReadException(
          "listing " + what + " in " + namespace + " failed: " + ClusterSnapshot.cause(e), e);
    }
  }
}
