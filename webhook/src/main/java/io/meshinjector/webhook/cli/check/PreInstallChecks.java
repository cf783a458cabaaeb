package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.check.NodeChecks;
import io.meshinjector.engine.check.NodePaths;
import io.meshinjector.engine.cluster.NodeFacts;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.CniDaemonSet;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What {@code check --pre} asks of a cluster before an install: may the installer create what the
 * chart installs, what nodes are there, is the mesh CNI ready, and which namespaces that would be
 * enabled forbid the init path.
 */
final class PreInstallChecks {
  static final String RBAC = "installer RBAC";
  static final String CNI = "mesh CNI";
  static final String PSA = "pod security";

  /**
   * What the chart creates, as {@code group/resource}; namespaced ones in the release namespace.
   */
  static final List<String> CLUSTER_SCOPED =
      List.of(
          "apiextensions.k8s.io/customresourcedefinitions",
          "admissionregistration.k8s.io/mutatingwebhookconfigurations",
          "admissionregistration.k8s.io/validatingadmissionpolicies",
          "admissionregistration.k8s.io/validatingadmissionpolicybindings",
          "rbac.authorization.k8s.io/clusterroles",
          "rbac.authorization.k8s.io/clusterrolebindings",
          "/namespaces");

  static final List<String> NAMESPACED =
      List.of(
          "apps/deployments",
          "apps/daemonsets",
          "/secrets",
          "/configmaps",
          "/serviceaccounts",
          "/services",
          "rbac.authorization.k8s.io/roles",
          "rbac.authorization.k8s.io/rolebindings",
          "coordination.k8s.io/leases");

  private final KubernetesClient client;
  private final String namespace;

  PreInstallChecks(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  List<CheckResult> installerRbac() {
    List<String> denied = new ArrayList<>();
    List<String> allowed = new ArrayList<>();
    for (String what : CLUSTER_SCOPED) {
      ask(what, null, allowed, denied);
    }
    for (String what : NAMESPACED) {
      ask(what, namespace, allowed, denied);
    }
    List<CheckResult> out = new ArrayList<>();
    if (denied.isEmpty()) {
      out.add(
          CheckResult.pass(
              RBAC,
              "can create everything the chart installs",
              allowed.size() + " kinds, in namespace " + namespace + " and cluster-wide"));
    }
    for (String d : denied) {
      out.add(
          CheckResult.fail(
              RBAC,
              "can create " + d,
              "denied for the current user",
              "install as a user with cluster-admin, or grant create on " + d));
    }
    return out;
  }

  private void ask(String groupResource, String ns, List<String> allowed, List<String> denied) {
    int slash = groupResource.indexOf('/');
    String group = groupResource.substring(0, slash);
    String resource = groupResource.substring(slash + 1);
    String name =
        (group.isEmpty() ? resource : resource + "." + group) + (ns == null ? "" : " in " + ns);
    SelfSubjectAccessReview review =
        new SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withResourceAttributes(AccessReviews.attributes("create", group, resource, ns))
            .endSpec()
            .build();
    Optional<String> refused =
        AccessReviews.refusal(
            () -> client.authorization().v1().selfSubjectAccessReview().create(review).getStatus());
    if (refused.isEmpty()) {
      allowed.add(name);
    } else {
      denied.add(name + refused.get());
    }
  }

  List<CheckResult> nodeShapes(NodeIndex index) {
    if (index.isEmpty()) {
      return List.of(
          CheckResult.warn(
              NodeChecks.NODES,
              "nodes",
              "none found",
              "nothing can be scheduled yet; the check judges nodes once they join"));
    }
    Map<String, Integer> shapes = new TreeMap<>();
    for (String name : index.nodeNames()) {
      NodeFacts f = index.facts(name).orElseThrow();
      shapes.merge(
          (f.osImage() == null ? "unknown OS" : f.osImage())
              + ", kubelet "
              + (f.kubeletVersion() == null ? "unknown" : f.kubeletVersion()),
          1,
          Integer::sum);
    }
    List<CheckResult> out = new ArrayList<>();
    shapes.forEach(
        (shape, count) ->
            out.add(
                CheckResult.pass(NodeChecks.NODES, "nodes of " + shape, String.valueOf(count))));
    return out;
  }

  List<CheckResult> meshCni(CniDaemonSet cni, Optional<NodeIndex> nodes) {
    if (cni == null || cni.namespace() == null || cni.namespace().isBlank()) {
      return List.of(
          CheckResult.pass(
              CNI, "mesh CNI", "capabilities.cniDaemonSet is not set: only the init path"));
    }
    List<DaemonSet> sets;
    try {
      sets = client.apps().daemonSets().inNamespace(cni.namespace()).list().getItems();
    } catch (KubernetesClientException e) {
      return List.of(
          CheckResult.warn(
              CNI,
              "can read the mesh CNI DaemonSet in " + cni.namespace(),
              ClusterSnapshot.cause(e),
              "grant list on daemonsets in " + cni.namespace() + " to see the CNI's readiness"));
    }
    if (sets.isEmpty()) {
      return List.of(
          CheckResult.warn(
              CNI,
              "mesh CNI DaemonSet present",
              "none in namespace " + cni.namespace(),
              "pods take the init path, which needs NET_ADMIN and NET_RAW; install the mesh CNI"
                  + " for namespaces whose Pod Security forbids them"));
    }
    List<CheckResult> out = new ArrayList<>();
    for (DaemonSet ds : sets) {
      int desired =
          ds.getStatus() == null ? 0 : ClusterChecks.nz(ds.getStatus().getDesiredNumberScheduled());
      int ready = ds.getStatus() == null ? 0 : ClusterChecks.nz(ds.getStatus().getNumberReady());
      String name = cni.namespace() + "/" + ds.getMetadata().getName();
      String detail = ready + " of " + desired + " pods ready";
      if (ready < desired || desired == 0) {
        out.add(
            CheckResult.warn(
                CNI,
                "mesh CNI DaemonSet " + name + " ready on every node",
                detail,
                "pods on the CNI path wait for nodes where it is ready; kubectl -n "
                    + cni.namespace()
                    + " get pods -o wide shows which are not"));
      } else {
        out.add(
            CheckResult.pass(CNI, "mesh CNI DaemonSet " + name + " ready on every node", detail));
      }
    }
    nodes.ifPresent(
        index -> {
          int readyNodes = NodePaths.verdictCounts(index).get(CapabilityKey.CNI).get(Verdict.READY);
          out.add(
              CheckResult.pass(
                  CNI, "nodes where the mesh CNI is ready", readyNodes + " of " + index.size()));
        });
    return out;
  }

  List<CheckResult> podSecurity(List<Namespace> namespaces) {
    List<CheckResult> out = new ArrayList<>();
    int enabled = 0;
    for (Namespace ns : namespaces) {
      Map<String, String> annotations = ClusterChecks.mapOf(ns.getMetadata().getAnnotations());
      Map<String, String> labels = ClusterChecks.mapOf(ns.getMetadata().getLabels());
      boolean optedIn =
          "enabled".equals(annotations.get(Annotations.INJECT))
              || "enabled".equals(annotations.get(Annotations.INJECT_PREFIXED));
      if (!optedIn) {
        continue;
      }
      enabled++;
      String level = labels.getOrDefault(Annotations.PSA_ENFORCE, "privileged");
      String name = ns.getMetadata().getName();
      if (level.equals("baseline") || level.equals("restricted")) {
        out.add(
            CheckResult.warn(
                PSA,
                "namespace " + name + " enforces Pod Security " + level,
                "the init path's NET_ADMIN and NET_RAW are forbidden there",
                "its pods need the CNI path: install the mesh CNI (capabilities.cniDaemonSet), or"
                    + " they are refused"));
      } else {
        out.add(
            CheckResult.pass(
                PSA, "namespace " + name + " allows the init path", "enforce " + level));
      }
    }
    if (enabled == 0) {
      out.add(
          CheckResult.pass(
              PSA, "namespaces that would be enabled", "none annotated inject=enabled yet"));
    }
    return out;
  }
}
