package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Namespaces, pods, Deployments and StatefulSets as a user writes them. */
public final class Workloads {
  private Workloads() {}

  /** Creates a namespace and waits for its default ServiceAccount, which every pod needs. */
  public static Namespace namespace(
      KubernetesClient admin,
      String name,
      Map<String, String> annotations,
      Map<String, String> labels) {
    Namespace ns =
        admin
            .namespaces()
            .resource(
                new NamespaceBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withAnnotations(annotations)
                    .withLabels(labels)
                    .endMetadata()
                    .build())
            .create();
    Await.until(
        "the default ServiceAccount in " + name,
        Duration.ofSeconds(30),
        () -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
    return ns;
  }

  /** Waits for the leader to label {@code name} for the chart's fail-closed webhook entry. */
  public static void awaitInjectionLabel(KubernetesClient admin, String name, Duration limit) {
    Await.until(
        name + " labelled mesh-injector.io/injection=enabled",
        limit,
        () -> {
          Map<String, String> labels =
              admin.namespaces().withName(name).get().getMetadata().getLabels();
          return labels != null && "enabled".equals(labels.get("mesh-injector.io/injection"));
        });
  }

  /**
   * A namespace that opted in ({@code inject: enabled}), returned once the leader has labelled it
   * for the chart's fail-closed webhook entry ({@link #awaitInjectionLabel}): the state a class
   * that admits pods there starts from.
   */
  public static Namespace optedIn(KubernetesClient admin, String name, Duration limit) {
    Namespace ns = namespace(admin, name, Map.of("inject", "enabled"), Map.of());
    awaitInjectionLabel(admin, name, limit);
    return ns;
  }

  public static PodSpec appSpec(Map<String, String> nodeSelector) {
    return new PodSpecBuilder()
        .withNodeSelector(nodeSelector)
        .addNewContainer()
        .withName("app")
        .withImage("registry.example/app:1.0")
        .addNewPort()
        .withContainerPort(8080)
        .endPort()
        .endContainer()
        .build();
  }

  public static Pod pod(String name, Map<String, String> annotations, PodSpec spec) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withAnnotations(annotations)
        .addToLabels("app", name)
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  public static Deployment deployment(
      String name, int replicas, Map<String, String> podAnnotations, PodSpec spec) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withSelector(selector(name))
        .withTemplate(template(name, podAnnotations, spec))
        .endSpec()
        .build();
  }

  /** One replica, its Service named after it, as a database is run. */
  public static StatefulSet statefulSet(String name, PodSpec spec) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withServiceName(name)
        .withReplicas(1)
        .withSelector(selector(name))
        .withTemplate(template(name, Map.of(), spec))
        .endSpec()
        .build();
  }

  /** A workload's pods are labelled {@code app: name}, which its selector and the tests read. */
  private static LabelSelector selector(String app) {
    return new LabelSelectorBuilder().addToMatchLabels("app", app).build();
  }

  private static PodTemplateSpec template(
      String app, Map<String, String> annotations, PodSpec spec) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .addToLabels("app", app)
        .withAnnotations(annotations)
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  /** The Deployment's pods, once {@code count} of them exist. */
  public static List<Pod> podsOf(KubernetesClient admin, String namespace, String app, int count) {
    Await.until(
        count + " pods of " + namespace + "/" + app,
        Duration.ofSeconds(60),
        () ->
            admin.pods().inNamespace(namespace).withLabel("app", app).list().getItems().size()
                >= count);
    return admin.pods().inNamespace(namespace).withLabel("app", app).list().getItems();
  }

  /** All pods of {@code app} bound to a node by the scheduler. */
  public static List<Pod> scheduled(
      KubernetesClient admin, String namespace, String app, int count) {
    return scheduled(admin, namespace, app, count, Duration.ofSeconds(60));
  }

  /**
   * The pods of {@code app} bound to nodes, once there are at least {@code count}. Only bound ones:
   * a controller may add a pod meanwhile (a CronJob's next run) that is not yet scheduled.
   */
  public static List<Pod> scheduled(
      KubernetesClient admin, String namespace, String app, int count, Duration limit) {
    Await.until(
        count + " pods of " + namespace + "/" + app + " bound to nodes",
        limit,
        () -> bound(admin, namespace, app).size() >= count);
    return bound(admin, namespace, app);
  }

  private static List<Pod> bound(KubernetesClient admin, String namespace, String app) {
    return admin.pods().inNamespace(namespace).withLabel("app", app).list().getItems().stream()
        .filter(p -> p.getSpec().getNodeName() != null)
        .toList();
  }
}
