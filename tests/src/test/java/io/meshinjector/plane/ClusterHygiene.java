package io.meshinjector.plane;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What keeps the classes that share one plane ({@link SharedPlane}) apart. Nodes, NodeCapabilities,
 * webhook configurations, admission policies, the CRD, cluster roles and node labels are
 * cluster-wide: a class starts only on a plane that holds none of them but the shared real node
 * ({@link #assertClean}), and when it ends everything it made is removed ({@link #restore}): its
 * Helm releases, then every cluster-scoped object and namespace that was not there when it started,
 * then the mesh-injector labels it left on the Nodes and namespaces that stay.
 */
public final class ClusterHygiene {
  /** Label (and annotation) prefixes of this project, on Nodes and namespaces. */
  static final List<String> OUR_PREFIXES =
      List.of("capability.mesh-injector.io/", "mesh-injector.io/");

  /** The NodeCapability CRD's objects, for the fabric8 client's generic resources. */
  public static final ResourceDefinitionContext NODE_CAPABILITY =
      new ResourceDefinitionContext.Builder()
          .withGroup("mesh-injector.io")
          .withVersion("v1alpha1")
          .withKind("NodeCapability")
          .withPlural("nodecapabilities")
          .withNamespaced(false)
          .build();

  static final String CRD = "nodecapabilities.mesh-injector.io";

  /** The cluster-scoped kinds a class may make, by the name the snapshot and errors use. */
  private static final Map<String, Function<KubernetesClient, List<? extends HasMetadata>>>
      CLUSTER_KINDS = clusterKinds();

  private static Map<String, Function<KubernetesClient, List<? extends HasMetadata>>>
      clusterKinds() {
    Map<String, Function<KubernetesClient, List<? extends HasMetadata>>> kinds =
        new LinkedHashMap<>();
    kinds.put(
        "MutatingWebhookConfiguration",
        c -> c.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems());
    kinds.put(
        "ValidatingWebhookConfiguration",
        c -> c.admissionRegistration().v1().validatingWebhookConfigurations().list().getItems());
    kinds.put(
        "ValidatingAdmissionPolicyBinding",
        c -> c.admissionRegistration().v1().validatingAdmissionPolicyBindings().list().getItems());
    kinds.put(
        "ValidatingAdmissionPolicy",
        c -> c.admissionRegistration().v1().validatingAdmissionPolicies().list().getItems());
    kinds.put(
        "CustomResourceDefinition",
        c -> c.apiextensions().v1().customResourceDefinitions().list().getItems());
    kinds.put("ClusterRoleBinding", c -> c.rbac().clusterRoleBindings().list().getItems());
    kinds.put("ClusterRole", c -> c.rbac().clusterRoles().list().getItems());
    kinds.put("PriorityClass", c -> c.scheduling().v1().priorityClasses().list().getItems());
    return kinds;
  }

  /** What was on the plane when a class started: the names of each kind, and the namespaces. */
  public record Snapshot(Map<String, Set<String>> clusterScoped, Set<String> namespaces) {}

  private ClusterHygiene() {}

  /**
   * Fails, naming each, if the plane holds a cluster-wide object of this project that {@code
   * testClass} did not create: a Node other than {@code sharedNodes}, a NodeCapability, the CRD, a
   * webhook configuration or admission policy, a Helm release, or a mesh-injector label on a Node.
   */
  public static Snapshot assertClean(
      KubernetesClient admin, Path kubeconfig, Set<String> sharedNodes, String testClass) {
    List<String> found = new ArrayList<>();
    for (Node node : admin.nodes().list().getItems()) {
      String name = node.getMetadata().getName();
      if (!sharedNodes.contains(name)) {
        found.add("Node " + name);
      } else {
        ours(node.getMetadata().getLabels()).forEach(l -> found.add("label " + l + " on " + name));
      }
    }
    if (admin.apiextensions().v1().customResourceDefinitions().withName(CRD).get() != null) {
      found.add("CustomResourceDefinition " + CRD);
      admin.genericKubernetesResources(NODE_CAPABILITY).list().getItems().stream()
          .map(n -> "NodeCapability " + n.getMetadata().getName())
          .forEach(found::add);
    }
    for (String kind :
        List.of(
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding")) {
      CLUSTER_KINDS.get(kind).apply(admin).stream()
          .map(o -> kind + " " + o.getMetadata().getName())
          .forEach(found::add);
    }
    for (Release r : releases(kubeconfig)) {
      found.add("Helm release " + r.getNamespace() + "/" + r.getName());
    }
    if (!found.isEmpty()) {
      throw new IllegalStateException(
          testClass
              + " starts on a shared plane holding cluster-wide objects it did not create (an"
              + " earlier class did not remove them): "
              + String.join(", ", found));
    }
    return snapshot(admin);
  }

  static Snapshot snapshot(KubernetesClient admin) {
    Map<String, Set<String>> names = new LinkedHashMap<>();
    CLUSTER_KINDS.forEach((kind, list) -> names.put(kind, names(list.apply(admin))));
    return new Snapshot(names, names(admin.namespaces().list().getItems()));
  }

  /**
   * Removes what was made since {@code before}: Helm releases (uninstalled as a user would), every
   * cluster-scoped object of the kinds above and namespace that is new (its pods force-deleted, as
   * no kubelet ends those on fake Nodes), the NodeCapabilities and every Node but {@code
   * sharedNodes}, and this project's labels on what stays. Waits until the namespaces and the CRD
   * are gone, so the next class can make them again under the same names.
   */
  public static void restore(
      KubernetesClient admin, Path kubeconfig, Snapshot before, Set<String> sharedNodes) {
    List<String> problems = new ArrayList<>();
    long start = System.nanoTime();
    for (Release r : releases(kubeconfig)) {
      try {
        Helm.uninstall(r.getName())
            .withNamespace(r.getNamespace())
            .withKubeConfig(kubeconfig)
            .call();
      } catch (RuntimeException e) {
        problems.add("helm uninstall " + r.getName() + ": " + e.getMessage());
      }
    }
    long uninstalled = System.nanoTime();
    Set<String> namespaces = names(admin.namespaces().list().getItems());
    namespaces.removeAll(before.namespaces());
    for (String ns : namespaces) {
      quietly(problems, () -> admin.namespaces().withName(ns).delete());
    }
    CLUSTER_KINDS.forEach(
        (kind, list) -> {
          for (HasMetadata o : list.apply(admin)) {
            if (!before.clusterScoped().get(kind).contains(o.getMetadata().getName())) {
              quietly(problems, () -> admin.resource(o).withGracePeriod(0).delete());
            }
          }
        });
    // one delete of the collection, whatever the count (LargeClusterIT leaves hundreds; one call a
    // Node took 20 s there), the shared Nodes left out by a field selector
    quietly(
        problems,
        () -> {
          FilterWatchListDeletable<Node, NodeList, Resource<Node>> others = admin.nodes();
          for (String shared : sharedNodes) {
            others = others.withoutField("metadata.name", shared);
          }
          others.delete();
        });
    long deleted = System.nanoTime();
    try {
      Await.until(
          "the namespaces " + namespaces + " and the CRD " + CRD + " gone",
          Duration.ofMinutes(2),
          () -> {
            // pods on fake Nodes, or in a namespace being deleted, end only when forced
            for (String ns : namespaces) {
              admin.pods().inNamespace(ns).withGracePeriod(0).delete();
            }
            Set<String> left = names(admin.namespaces().list().getItems());
            left.retainAll(namespaces);
            return left.isEmpty()
                && admin.apiextensions().v1().customResourceDefinitions().withName(CRD).get()
                    == null;
          },
          () -> "left: " + leftNamespaces(admin, namespaces));
    } catch (AssertionError e) {
      problems.add(e.getMessage());
    }
    long gone = System.nanoTime();
    // only now: a replica of the class's release, still draining on the real node, could write
    // its labels until its namespace (and so its token) was gone
    for (Node node : admin.nodes().list().getItems()) {
      if (sharedNodes.contains(node.getMetadata().getName())) {
        quietly(problems, () -> dropOurLabels(admin, node));
      }
    }
    for (Namespace ns : admin.namespaces().list().getItems()) {
      if (before.namespaces().contains(ns.getMetadata().getName())) {
        quietly(problems, () -> dropOurLabels(admin, ns));
      }
    }
    // where a class's restore goes (docs/testing.md): the wait is the namespace controller's
    System.out.printf(
        "restore: helm uninstall %d ms, deletes %d ms, namespaces %s and the CRD gone after %d ms,"
            + " labels %d ms%n",
        (uninstalled - start) / 1_000_000,
        (deleted - uninstalled) / 1_000_000,
        namespaces,
        (gone - deleted) / 1_000_000,
        (System.nanoTime() - gone) / 1_000_000);
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "the shared plane could not be restored: " + String.join("; ", problems));
    }
  }

  private static String leftNamespaces(KubernetesClient admin, Set<String> namespaces) {
    return admin.namespaces().list().getItems().stream()
        .filter(n -> namespaces.contains(n.getMetadata().getName()))
        .map(n -> n.getMetadata().getName() + " " + n.getStatus().getConditions())
        .collect(Collectors.joining("; "));
  }

  /**
   * A merge patch setting each of this project's labels to null: no resourceVersion, so the
   * kubelet's status writes to the same Node cannot make it conflict.
   */
  private static void dropOurLabels(KubernetesClient admin, HasMetadata object) {
    Set<String> labels = ours(object.getMetadata().getLabels());
    if (labels.isEmpty()) {
      return;
    }
    Map<String, Object> nulls = new LinkedHashMap<>();
    labels.forEach(l -> nulls.put(l, null));
    String patch;
    try {
      patch =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .writeValueAsString(Map.of("metadata", Map.of("labels", nulls)));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    PatchContext merge = PatchContext.of(PatchType.JSON_MERGE);
    if (object instanceof Node node) {
      admin.nodes().withName(node.getMetadata().getName()).patch(merge, patch);
    } else {
      admin.namespaces().withName(object.getMetadata().getName()).patch(merge, patch);
    }
  }

  static Set<String> ours(Map<String, String> labels) {
    if (labels == null) {
      return Set.of();
    }
    return labels.keySet().stream()
        .filter(k -> OUR_PREFIXES.stream().anyMatch(k::startsWith))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<Release> releases(Path kubeconfig) {
    return Helm.list().all().allNamespaces().withKubeConfig(kubeconfig).call();
  }

  private static Set<String> names(List<? extends HasMetadata> objects) {
    return objects.stream()
        .map(o -> o.getMetadata().getName())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static void quietly(List<String> problems, Runnable step) {
    try {
      step.run();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        problems.add(e.getMessage());
      }
    }
  }
}
