package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.CniDaemonSet;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the injector itself cannot see. NodeCapabilities and the mesh CNI's pods are optional
 * sources of a replica's view: without them it stays ready, and the verdicts they feed stay {@code
 * unknown}, which refuses pods that need the CNI path. For each, {@code check} asks the API server
 * whether the webhook's ServiceAccount may list and watch it (a SubjectAccessReview, the API
 * server's own answer), and whether the replicas say they have it: their {@code
 * mesh_injector_cluster_source_synced} gauge (read through the API server's pod proxy, where the
 * user may) and the {@code cni} label the elected replica publishes on the nodes where the CNI's
 * pod is Ready.
 */
final class ViewChecks {
  static final String GROUP = "injector's view";
  static final String CNI_SOURCE = "cni-pods";
  static final String CAPABILITIES_SOURCE = "nodecapabilities";
  static final String SYNCED_GAUGE = "mesh_injector_cluster_source_synced";

  private final KubernetesClient client;
  private final String namespace;

  ViewChecks(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** What the replicas report of one source: synced on some of those that answered. */
  record ReplicaReport(int answered, int synced, String note) {
    String describe() {
      return answered == 0
          ? "the replicas' own view was not read (" + note + ")"
          : "the replicas say: synced on " + synced + " of " + answered;
    }
  }

  /**
   * @param fullname the release's full name (the webhook configuration's), for the default
   *     ServiceAccount and release names
   * @param deployment the release's Deployment as the install checks read it; null when absent
   * @param index the nodes as check read them, with their published labels; empty when not read
   * @param cniReadyNodes the nodes where the check, on its own credentials, found the mesh CNI's
   *     pod Ready
   */
  List<CheckResult> blindSpots(
      String fullname,
      Deployment deployment,
      MeshConfig config,
      Optional<NodeIndex> index,
      Set<String> cniReadyNodes) {
    List<CheckResult> out = new ArrayList<>();
    String account = serviceAccount(deployment, fullname);
    String release = release(deployment, fullname);
    Metrics metrics = replicaMetrics(deployment);
    ReplicaReport cniReport = metrics.report(CNI_SOURCE);
    ReplicaReport capsReport = metrics.report(CAPABILITIES_SOURCE);
    out.add(nodeCapabilities(account, release, capsReport));
    CniDaemonSet cni = config.engine().capabilities().cniDaemonSet();
    if (cni != null && cni.namespace() != null && !cni.namespace().isBlank()) {
      out.add(meshCni(cni, account, release, cniReport, index, cniReadyNodes));
    }
    return out;
  }

  CheckResult nodeCapabilities(String account, String release, ReplicaReport replicas) {
    String what = "NodeCapabilities (the probe's verdicts)";
    String name = "the webhook can read " + what;
    boolean crd;
    try {
      crd =
          client.apiextensions().v1().customResourceDefinitions().withName(InstallChecks.CRD).get()
              != null;
    } catch (KubernetesClientException e) {
      return CheckResult.warn(
          GROUP,
          name,
          "cannot tell whether the CRD is installed: " + ClusterSnapshot.cause(e),
          "grant get on customresourcedefinitions to the user running check");
    }
    if (!crd) {
      return CheckResult.warn(
          GROUP,
          name,
          "the CRD "
              + InstallChecks.CRD
              + " is not installed: every node's verdicts come from inference alone",
          "install the CRD: kubectl apply -f"
              + " helm/mesh-injector/templates/crd-nodecapabilities.yaml (helm does not upgrade"
              + " CRDs); the replicas pick it up without a restart");
    }
    List<String> denied =
        denied(account, NodeCapabilityStatus.GROUP, NodeCapabilityStatus.PLURAL, null);
    return judge(
        name,
        account,
        denied,
        NodeCapabilityStatus.PLURAL + "." + NodeCapabilityStatus.GROUP + " cluster-wide",
        "helm upgrade "
            + release
            + " -n "
            + namespace
            + " restores the chart's ClusterRole, which grants them",
        replicas,
        List.of());
  }

  CheckResult meshCni(
      CniDaemonSet cni,
      String account,
      String release,
      ReplicaReport replicas,
      Optional<NodeIndex> index,
      Set<String> cniReadyNodes) {
    String what = "the mesh CNI's pods in " + cni.namespace();
    String name = "the webhook can read " + what;
    List<DaemonSet> sets;
    try {
      sets = client.apps().daemonSets().inNamespace(cni.namespace()).list().getItems();
    } catch (KubernetesClientException e) {
      return CheckResult.warn(
          GROUP,
          name,
          "cannot list DaemonSets in " + cni.namespace() + ": " + ClusterSnapshot.cause(e),
          "grant list on daemonsets there to the user running check");
    }
    if (sets.isEmpty()) {
      return CheckResult.pass(
          GROUP, name, "no mesh CNI DaemonSet in " + cni.namespace() + ": nothing to read yet");
    }
    List<String> denied = denied(account, "", "pods", cni.namespace());
    // the elected replica labels each node with the cni verdict its view gives: a node where the
    // CNI's pod is Ready but whose label is not `ready` is one the replicas do not see it on
    List<String> unseen = new ArrayList<>();
    index.ifPresent(
        nodes -> {
          for (String node : new TreeSet<>(cniReadyNodes)) {
            nodes
                .facts(node)
                .map(f -> f.labels().get(CapabilityKey.LABEL_PREFIX + "cni"))
                .filter(label -> !"ready".equals(label))
                .ifPresent(label -> unseen.add(node + " (published cni=" + label + ")"));
          }
        });
    return judge(
        name,
        account,
        denied,
        "pods in " + cni.namespace(),
        denied.isEmpty()
            ? "the replicas' logs say why (cluster view: cannot read the mesh CNI's pods)"
            : "the mesh CNI was installed after mesh-injector, so the chart's Role in "
                + cni.namespace()
                + " was not created: run helm upgrade "
                + release
                + " -n "
                + namespace
                + " (with your values; cniPodsRole: auto creates it once the namespace exists);"
                + " the replicas pick the pods up without a restart",
        replicas,
        unseen);
  }

  private static CheckResult judge(
      String name,
      String account,
      List<String> denied,
      String resource,
      String fix,
      ReplicaReport replicas,
      List<String> unseen) {
    if (!denied.isEmpty()) {
      return CheckResult.warn(
          GROUP,
          name,
          "the ServiceAccount "
              + account
              + " may not "
              + String.join(", ", denied)
              + " "
              + resource
              + " (SubjectAccessReview): the verdicts they feed stay unknown on every node; "
              + replicas.describe(),
          fix);
    }
    if (replicas.answered() > replicas.synced() || !unseen.isEmpty()) {
      List<String> found = new ArrayList<>();
      if (replicas.answered() > replicas.synced()) {
        found.add(replicas.describe());
      }
      if (!unseen.isEmpty()) {
        found.add(
            "Ready there but not in the published labels: "
                + String.join(", ", unseen.subList(0, Math.min(5, unseen.size())))
                + (unseen.size() > 5 ? " and " + (unseen.size() - 5) + " more" : ""));
      }
      return CheckResult.warn(
          GROUP,
          name,
          "the ServiceAccount may list and watch " + resource + ", yet " + String.join("; ", found),
          fix);
    }
    return CheckResult.pass(
        GROUP,
        name,
        "the ServiceAccount " + account + " may list and watch them; " + replicas.describe());
  }

  /**
   * The verbs of list and watch the account may not use on the resource, as the API server says.
   */
  List<String> denied(String account, String group, String resource, String ns) {
    List<String> out = new ArrayList<>();
    int colon = account.indexOf('/');
    String saNamespace = account.substring(0, colon);
    for (String verb : List.of("list", "watch")) {
      SubjectAccessReview review =
          new SubjectAccessReviewBuilder()
              .withNewSpec()
              .withUser("system:serviceaccount:" + account.replace('/', ':'))
              .withGroups(
                  "system:serviceaccounts",
                  "system:serviceaccounts:" + saNamespace,
                  "system:authenticated")
              .withResourceAttributes(AccessReviews.attributes(verb, group, resource, ns))
              .endSpec()
              .build();
      AccessReviews.refusal(
              () -> client.authorization().v1().subjectAccessReview().create(review).getStatus())
          .ifPresent(why -> out.add(verb + why));
    }
    return out;
  }

  /** {@code namespace/name} of the replicas' ServiceAccount. */
  String serviceAccount(Deployment d, String fullname) {
    String sa =
        d == null
                || d.getSpec() == null
                || d.getSpec().getTemplate() == null
                || d.getSpec().getTemplate().getSpec() == null
            ? null
            : d.getSpec().getTemplate().getSpec().getServiceAccountName();
    return namespace + "/" + (sa == null || sa.isBlank() ? fullname : sa);
  }

  /** The Helm release's name, from the label the chart sets, for the hint's command. */
  static String release(Deployment d, String fullname) {
    String instance =
        d == null
            ? null
            : ClusterChecks.mapOf(d.getMetadata().getLabels()).get("app.kubernetes.io/instance");
    if (instance != null) {
      return instance;
    }
    return fullname != null && fullname.endsWith("-mesh-injector")
        ? fullname.substring(0, fullname.length() - "-mesh-injector".length())
        : "<release>";
  }

  /**
   * The metrics of each Ready replica as they answered, and why none did, when none did.
   *
   * @param texts one Prometheus text exposition per replica that answered
   */
  record Metrics(List<String> texts, String note) {
    ReplicaReport report(String source) {
      int answered = 0;
      int synced = 0;
      String why = note;
      for (String text : texts) {
        Optional<Double> value = gauge(text, source);
        if (value.isEmpty()) {
          why = "no " + SYNCED_GAUGE + " for " + source + " in its metrics";
          continue;
        }
        answered++;
        if (value.get() >= 1) {
          synced++;
        }
      }
      return new ReplicaReport(answered, synced, why);
    }
  }

  /**
   * The metrics of each Ready replica, through the API server's pod proxy ({@code get pods/proxy}
   * in the release's namespace, which the user running check may lack). One GET per replica.
   */
  Metrics replicaMetrics(Deployment d) {
    if (d == null || d.getSpec() == null || d.getSpec().getSelector() == null) {
      return new Metrics(List.of(), "no Deployment");
    }
    Integer port = metricsPort(d);
    if (port == null) {
      return new Metrics(List.of(), "its pods have no port named metrics");
    }
    List<Pod> pods;
    try {
      pods =
          client
              .pods()
              .inNamespace(namespace)
              .withLabels(d.getSpec().getSelector().getMatchLabels())
              .list()
              .getItems();
    } catch (KubernetesClientException e) {
      return new Metrics(List.of(), "listing its pods: " + ClusterSnapshot.cause(e));
    }
    List<String> texts = new ArrayList<>();
    String note = "no replica pod is Ready";
    for (Pod pod : pods) {
      if (!ready(pod)) {
        continue;
      }
      String path =
          "/api/v1/namespaces/"
              + namespace
              + "/pods/"
              + pod.getMetadata().getName()
              + ":"
              + port
              + "/proxy/metrics";
      try {
        String text = client.raw(path);
        if (text == null) {
          note = "its metrics through the pod proxy: no answer";
        } else {
          texts.add(text);
        }
      } catch (KubernetesClientException e) {
        note = "its metrics through the pod proxy: " + ClusterSnapshot.cause(e);
      }
    }
    return new Metrics(texts, note);
  }

  /** The gauge's value for {@code source} in Prometheus' text format. */
  static Optional<Double> gauge(String metrics, String source) {
    if (metrics == null) {
      return Optional.empty();
    }
    for (String line : metrics.split("\n")) {
      if (line.startsWith(SYNCED_GAUGE + "{") && line.contains("source=\"" + source + "\"")) {
        String[] parts = line.trim().split("\\s+");
        try {
          return Optional.of(Double.parseDouble(parts[parts.length - 1]));
        } catch (NumberFormatException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  private static Integer metricsPort(Deployment d) {
    var spec = d.getSpec().getTemplate().getSpec();
    if (spec == null || spec.getContainers() == null) {
      return null;
    }
    for (var c : spec.getContainers()) {
      for (ContainerPort p : c.getPorts() == null ? List.<ContainerPort>of() : c.getPorts()) {
        if ("metrics".equals(p.getName())) {
          return p.getContainerPort();
        }
      }
    }
    return null;
  }

  private static boolean ready(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
        return true;
      }
    }
    return false;
  }
}
