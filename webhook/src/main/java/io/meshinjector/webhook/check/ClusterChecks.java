package io.meshinjector.webhook.check;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.check.CheckResult.Fail;
import io.meshinjector.engine.check.CheckResult.Pass;
import io.meshinjector.engine.check.CheckResult.Warn;
import io.meshinjector.engine.check.NodeChecks;
import io.meshinjector.engine.check.NodePaths;
import io.meshinjector.engine.check.PodsAtRisk;
import io.meshinjector.engine.check.ProbeCoverage;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeFacts;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.CniDaemonSet;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.rules.Viability;
import io.meshinjector.webhook.cluster.ClusterReadException;
import io.meshinjector.webhook.cluster.ClusterSnapshot;
import io.meshinjector.webhook.cluster.ServerVersion;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The cluster side of {@code mesh-injector check}: one list per resource kind (in pages, each
 * trimmed before the next, as {@link ClusterSnapshot} reads), no per-node call; the judgement of
 * what was read is the pure {@link NodeChecks}. Every read that fails becomes a failed check naming
 * it, so one missing permission does not hide the rest of the report.
 */
public final class ClusterChecks {
  static final String API = "kubernetes-api";
  static final String RBAC = "installer RBAC";
  static final String CNI = "mesh CNI";
  static final String PSA = "pod security";
  static final String INSTALL = "mesh-injector install";

  static final String CRD = NodeCapabilityStatus.PLURAL + "." + NodeCapabilityStatus.GROUP;
  static final String WEBHOOK_ENTRY = "inject.mesh-injector.io";
  static final String INJECTION_LABEL = "mesh-injector.io/injection";

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
  private final Clock clock;

  /**
   * @param namespace the release's namespace: where {@code --pre} asks whether the installer may
   *     create, and where the installed replicas are looked for
   */
  public ClusterChecks(KubernetesClient client, String namespace, Clock clock) {
    this.client = client;
    this.namespace = namespace;
    this.clock = clock;
  }

  /**
   * Before install: the API server, the installer's RBAC, the nodes, the mesh CNI, Pod Security.
   */
  public List<CheckResult> pre(MeshConfig config) {
    List<CheckResult> out = new ArrayList<>();
    out.add(apiServer());
    out.addAll(installerRbac());
    List<Namespace> namespaces = new ArrayList<>();
    Optional<NodeIndex> nodes =
        read(config, namespaces, true, out).map(v -> v.nodes(clock.instant()));
    nodes.ifPresent(index -> out.addAll(nodeShapes(index)));
    nodes
        .filter(index -> !index.isEmpty())
        .ifPresent(
            index ->
                out.addAll(
                    NodeChecks.paths(
                        index.size(),
                        NodePaths.withoutPath(
                            index,
                            new Viability(config.engine().capabilities()),
                            config.engine().policy().preference()),
                        config.engine().policy().preference())));
    out.addAll(meshCni(config.engine().capabilities().cniDaemonSet(), nodes));
    out.addAll(podSecurity(namespaces));
    return out;
  }

  /**
   * After install: the CRD, the webhook configuration and its caBundle, the certificate, the
   * replicas, a server-side dry run through the webhook, probe coverage, nodes without a path and
   * pods at risk.
   */
  public List<CheckResult> installed(Optional<MeshConfig> given) {
    List<CheckResult> out = new ArrayList<>();
    out.add(apiServer());
    out.add(crd());
    Optional<MutatingWebhookConfiguration> webhook = webhookConfiguration(out);
    String fullname = webhook.map(w -> w.getMetadata().getName()).orElse(null);
    if (webhook.isPresent()) {
      caBundleAndCertificate(webhook.get(), fullname, out);
      replicas(webhook.get(), fullname, out);
    }
    MeshConfig config = given.orElseGet(() -> installedConfig(fullname, out));
    List<Namespace> namespaces = new ArrayList<>();
    Optional<InMemoryClusterView> view = read(config, namespaces, false, out);
    if (webhook.isPresent()) {
      out.add(dryRun(namespaces));
    }
    view.ifPresent(v -> out.addAll(nodeHealth(v, config)));
    return out;
  }

  // --- before install ---

  CheckResult apiServer() {
    VersionInfo info;
    try {
      info = client.getKubernetesVersion();
    } catch (KubernetesClientException e) {
      return new Fail(
          API,
          "can reach the API server",
          ClusterSnapshot.cause(e),
          "check the kubeconfig's server address and credentials (kubectl version)");
    }
    Optional<int[]> parsed = ServerVersion.parse(info);
    String version = info == null ? "unknown" : info.getGitVersion();
    if (parsed.isEmpty()) {
      return new Warn(
          API, "API server version", version, "the version could not be read; see docs/deploy.md");
    }
    int[] v = parsed.get();
    int minor = v[0] > 1 ? Integer.MAX_VALUE : v[1];
    List<String> means = new ArrayList<>();
    means.add(
        ServerVersion.supportsNativeSidecars(v)
            ? "native sidecars served"
            : "no native sidecars (the proxy becomes a regular container)");
    means.add(
        minor >= 30
            ? "ValidatingAdmissionPolicy and matchConditions GA"
            : minor >= 28
                ? "matchConditions beta, no v1 ValidatingAdmissionPolicy (the probe's write guard)"
                : "no matchConditions (a second, idempotent webhook call per pod), no admission"
                    + " policies");
    String detail = version + ": " + String.join("; ", means);
    if (minor < 30) {
      return new Warn(
          API,
          "API server version",
          detail,
          "Kubernetes 1.30 or later runs every part of the chart (docs/deploy.md)");
    }
    return new Pass(API, "API server version", detail);
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
          new Pass(
              RBAC,
              "can create everything the chart installs",
              allowed.size() + " kinds, in namespace " + namespace + " and cluster-wide"));
    }
    for (String d : denied) {
      out.add(
          new Fail(
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
            .withNewResourceAttributes()
            .withVerb("create")
            .withGroup(group)
            .withResource(resource)
            .withNamespace(ns)
            .endResourceAttributes()
            .endSpec()
            .build();
    try {
      SelfSubjectAccessReview answer =
          client.authorization().v1().selfSubjectAccessReview().create(review);
      boolean ok =
          answer.getStatus() != null && Boolean.TRUE.equals(answer.getStatus().getAllowed());
      (ok ? allowed : denied).add(name);
    } catch (KubernetesClientException e) {
      denied.add(name + " (the review failed: " + ClusterSnapshot.cause(e) + ")");
    }
  }

  /** The view, read once; a failure to read it becomes a failed check. */
  Optional<InMemoryClusterView> read(
      MeshConfig config, List<Namespace> namespaces, boolean preInstall, List<CheckResult> out) {
    ClusterSnapshot.Snapshot snapshot;
    try {
      snapshot = ClusterSnapshot.read(client, config.engine().capabilities(), namespaces::add);
    } catch (ClusterReadException e) {
      out.add(
          new Fail(
              NodeChecks.NODES,
              "can read nodes, namespaces and node capabilities",
              e.getMessage(),
              "the check needs list on nodes, namespaces, nodecapabilities.mesh-injector.io"
                  + " and pods in the mesh CNI's namespace (capabilities.cniDaemonSet)"));
      return Optional.empty();
    }
    for (String note : snapshot.notes()) {
      // before an install the chart's CRD is not there yet, and nothing is missing
      if (!(preInstall && note.equals(ClusterSnapshot.CRD_MISSING))) {
        out.add(
            new Warn(
                NodeChecks.NODES,
                "the cluster view is partial",
                note,
                "docs/operations.md#readiness-what-a-replica-waits-for"));
      }
    }
    return Optional.of(snapshot.view());
  }

  List<CheckResult> nodeShapes(NodeIndex index) {
    if (index.isEmpty()) {
      return List.of(
          new Warn(
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
            out.add(new Pass(NodeChecks.NODES, "nodes of " + shape, String.valueOf(count))));
    return out;
  }

  List<CheckResult> meshCni(CniDaemonSet cni, Optional<NodeIndex> nodes) {
    if (cni == null || cni.namespace() == null || cni.namespace().isBlank()) {
      return List.of(
          new Pass(CNI, "mesh CNI", "capabilities.cniDaemonSet is not set: only the init path"));
    }
    List<DaemonSet> sets;
    try {
      sets = client.apps().daemonSets().inNamespace(cni.namespace()).list().getItems();
    } catch (KubernetesClientException e) {
      return List.of(
          new Warn(
              CNI,
              "can read the mesh CNI DaemonSet in " + cni.namespace(),
              ClusterSnapshot.cause(e),
              "grant list on daemonsets in " + cni.namespace() + " to see the CNI's readiness"));
    }
    if (sets.isEmpty()) {
      return List.of(
          new Warn(
              CNI,
              "mesh CNI DaemonSet present",
              "none in namespace " + cni.namespace(),
              "pods take the init path, which needs NET_ADMIN and NET_RAW; install the mesh CNI"
                  + " for namespaces whose Pod Security forbids them"));
    }
    List<CheckResult> out = new ArrayList<>();
    for (DaemonSet ds : sets) {
      int desired = ds.getStatus() == null ? 0 : nz(ds.getStatus().getDesiredNumberScheduled());
      int ready = ds.getStatus() == null ? 0 : nz(ds.getStatus().getNumberReady());
      String name = cni.namespace() + "/" + ds.getMetadata().getName();
      String detail = ready + " of " + desired + " pods ready";
      if (ready < desired || desired == 0) {
        out.add(
            new Warn(
                CNI,
                "mesh CNI DaemonSet " + name + " ready on every node",
                detail,
                "pods on the CNI path wait for nodes where it is ready; kubectl -n "
                    + cni.namespace()
                    + " get pods -o wide shows which are not"));
      } else {
        out.add(new Pass(CNI, "mesh CNI DaemonSet " + name + " ready on every node", detail));
      }
    }
    nodes.ifPresent(
        index -> {
          int readyNodes = NodePaths.verdictCounts(index).get(CapabilityKey.CNI).get(Verdict.READY);
          out.add(
              new Pass(
                  CNI, "nodes where the mesh CNI is ready", readyNodes + " of " + index.size()));
        });
    return out;
  }

  List<CheckResult> podSecurity(List<Namespace> namespaces) {
    List<CheckResult> out = new ArrayList<>();
    int enabled = 0;
    for (Namespace ns : namespaces) {
      Map<String, String> annotations = mapOf(ns.getMetadata().getAnnotations());
      Map<String, String> labels = mapOf(ns.getMetadata().getLabels());
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
            new Warn(
                PSA,
                "namespace " + name + " enforces Pod Security " + level,
                "the init path's NET_ADMIN and NET_RAW are forbidden there",
                "its pods need the CNI path: install the mesh CNI (capabilities.cniDaemonSet), or"
                    + " they are refused"));
      } else {
        out.add(new Pass(PSA, "namespace " + name + " allows the init path", "enforce " + level));
      }
    }
    if (enabled == 0) {
      out.add(
          new Pass(PSA, "namespaces that would be enabled", "none annotated inject=enabled yet"));
    }
    return out;
  }

  // --- after install ---

  CheckResult crd() {
    CustomResourceDefinition crd;
    try {
      crd = client.apiextensions().v1().customResourceDefinitions().withName(CRD).get();
    } catch (KubernetesClientException e) {
      return new Fail(
          INSTALL,
          "the NodeCapability CRD is established",
          ClusterSnapshot.cause(e),
          "grant get on customresourcedefinitions to the user running check");
    }
    boolean established =
        crd != null
            && crd.getStatus() != null
            && crd.getStatus().getConditions() != null
            && crd.getStatus().getConditions().stream()
                .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    if (!established) {
      return new Fail(
          INSTALL,
          "the NodeCapability CRD is established",
          crd == null ? CRD + " not found" : CRD + " is not established yet",
          "install the chart (helm install), which ships the CRD; helm does not upgrade CRDs:"
              + " kubectl apply -f helm/mesh-injector/templates/crd-nodecapabilities.yaml");
    }
    return new Pass(INSTALL, "the NodeCapability CRD is established", CRD);
  }

  Optional<MutatingWebhookConfiguration> webhookConfiguration(List<CheckResult> out) {
    List<MutatingWebhookConfiguration> all;
    try {
      all = client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems();
    } catch (KubernetesClientException e) {
      out.add(
          new Fail(
              INSTALL,
              "the webhook configuration exists",
              ClusterSnapshot.cause(e),
              "grant list on mutatingwebhookconfigurations to the user running check"));
      return Optional.empty();
    }
    Optional<MutatingWebhookConfiguration> ours =
        all.stream()
            .filter(
                w ->
                    w.getWebhooks() != null
                        && w.getWebhooks().stream()
                            .anyMatch(h -> WEBHOOK_ENTRY.equals(h.getName())))
            .findFirst();
    if (ours.isEmpty()) {
      out.add(
          new Fail(
              INSTALL,
              "the webhook configuration exists",
              "no MutatingWebhookConfiguration has the entry " + WEBHOOK_ENTRY,
              "install the chart: helm install mesh-injector helm/mesh-injector -n " + namespace));
    } else {
      out.add(
          new Pass(
              INSTALL, "the webhook configuration exists", ours.get().getMetadata().getName()));
    }
    return ours;
  }

  void caBundleAndCertificate(
      MutatingWebhookConfiguration webhook, String fullname, List<CheckResult> out) {
    MutatingWebhook entry = entry(webhook);
    String bundle = entry.getClientConfig() == null ? null : entry.getClientConfig().getCaBundle();
    if (bundle == null || bundle.isBlank()) {
      out.add(
          new Fail(
              INSTALL,
              "the webhook's caBundle verifies the serving certificate",
              "the caBundle is empty",
              "in cert-manager mode check its CA injector; else helm upgrade writes it"
                  + " (docs/certificates.md)"));
      return;
    }
    Secret secret;
    try {
      secret = client.secrets().inNamespace(namespace).withName(fullname + "-tls").get();
    } catch (KubernetesClientException e) {
      out.add(
          new Warn(
              INSTALL,
              "the webhook's caBundle verifies the serving certificate",
              "cannot read Secret "
                  + namespace
                  + "/"
                  + fullname
                  + "-tls: "
                  + ClusterSnapshot.cause(e),
              "grant get on that Secret, or rely on the dry-run check below"));
      return;
    }
    if (secret == null || secret.getData() == null || secret.getData().get("tls.crt") == null) {
      out.add(
          new Warn(
              INSTALL,
              "the webhook's caBundle verifies the serving certificate",
              "no Secret " + namespace + "/" + fullname + "-tls with a tls.crt",
              "with tls.mode=secret the Secret is yours: check it against the caBundle by hand"));
      return;
    }
    try {
      List<X509Certificate> cas = certificates(decode(bundle));
      X509Certificate serving = certificates(decode(secret.getData().get("tls.crt"))).get(0);
      boolean verified = false;
      for (X509Certificate ca : cas) {
        try {
          serving.verify(ca.getPublicKey());
          verified = true;
          break;
        } catch (GeneralSecurityException e) {
          // another CA of the bundle may have signed it (a CA rollover keeps two)
        }
      }
      if (verified) {
        out.add(
            new Pass(
                INSTALL,
                "the webhook's caBundle verifies the serving certificate",
                cas.size() + " CA certificates in the bundle"));
      } else {
        out.add(
            new Fail(
                INSTALL,
                "the webhook's caBundle verifies the serving certificate",
                "no CA of the caBundle signed " + serving.getSubjectX500Principal().getName(),
                "the API server refuses the webhook's TLS: helm upgrade (self-managed) or"
                    + " re-issue the Secret from the caBundle's CA (docs/certificates.md)"));
      }
      out.add(
          NodeChecks.certificate(
              "the serving certificate", serving.getNotAfter().toInstant(), clock.instant()));
    } catch (GeneralSecurityException | IllegalArgumentException | IndexOutOfBoundsException e) {
      out.add(
          new Fail(
              INSTALL,
              "the webhook's caBundle verifies the serving certificate",
              "unreadable PEM: " + e.getMessage(),
              "the caBundle and the Secret's tls.crt must be base64 of PEM certificates"));
    }
  }

  void replicas(MutatingWebhookConfiguration webhook, String fullname, List<CheckResult> out) {
    String url = entry(webhook).getClientConfig().getUrl();
    Deployment d;
    try {
      d = client.apps().deployments().inNamespace(namespace).withName(fullname).get();
    } catch (KubernetesClientException e) {
      out.add(
          new Warn(
              INSTALL,
              "webhook replicas ready",
              ClusterSnapshot.cause(e),
              "grant get on deployments in " + namespace));
      return;
    }
    int ready = d == null || d.getStatus() == null ? 0 : nz(d.getStatus().getReadyReplicas());
    int wanted = d == null || d.getSpec() == null ? 0 : nz(d.getSpec().getReplicas());
    // a replica turns Ready only once its view of Nodes and Namespaces is in sync (/readyz)
    String detail = ready + " of " + wanted + " ready (Ready means its cluster view is in sync)";
    if (ready > 0) {
      out.add(new Pass(INSTALL, "webhook replicas ready", detail));
    } else if (url != null) {
      out.add(
          new Warn(
              INSTALL,
              "webhook replicas ready",
              detail + "; the webhook configuration calls " + url + ", outside the Deployment",
              "the dry run below says whether that address answers"));
    } else {
      out.add(
          new Fail(
              INSTALL,
              "webhook replicas ready",
              d == null ? "no Deployment " + namespace + "/" + fullname : detail,
              "pods in opted-in namespaces are refused until one is ready: kubectl -n "
                  + namespace
                  + " describe deployment "
                  + fullname
                  + " and the replicas' logs"));
    }
  }

  MeshConfig installedConfig(String fullname, List<CheckResult> out) {
    if (fullname == null) {
      return ConfigLoader.defaults();
    }
    try {
      var cm = client.configMaps().inNamespace(namespace).withName(fullname + "-config").get();
      if (cm != null && cm.getData() != null && cm.getData().get("config.yaml") != null) {
        return ConfigLoader.fromYaml(
            "ConfigMap " + namespace + "/" + fullname + "-config", cm.getData().get("config.yaml"));
      }
    } catch (KubernetesClientException | IllegalArgumentException e) {
      out.add(
          new Warn(
              INSTALL,
              "the release's config is readable",
              ClusterSnapshot.cause(e),
              "the checks below use the embedded defaults; give --config FILE"));
    }
    return ConfigLoader.defaults();
  }

  /** A server-side dry run of a pod in an opted-in namespace: the API server calls the webhook. */
  CheckResult dryRun(List<Namespace> namespaces) {
    String name = "the API server calls the webhook";
    Optional<String> enabled =
        namespaces.stream()
            .filter(n -> "enabled".equals(mapOf(n.getMetadata().getLabels()).get(INJECTION_LABEL)))
            .map(n -> n.getMetadata().getName())
            .sorted()
            .findFirst();
    if (enabled.isEmpty()) {
      return new Warn(
          INSTALL,
          name,
          "no namespace carries " + INJECTION_LABEL + "=enabled, so no pod was tried",
          "kubectl annotate namespace NS inject=enabled (the elected replica labels it)");
    }
    Pod trial =
        new PodBuilder()
            .withNewMetadata()
            .withName("mesh-injector-check-" + UUID.randomUUID().toString().substring(0, 8))
            .withNamespace(enabled.get())
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("registry.k8s.io/pause:3.10")
            .endContainer()
            .endSpec()
            .build();
    try {
      Pod answer = client.pods().inNamespace(enabled.get()).resource(trial).dryRun().create();
      String decision = mapOf(answer.getMetadata().getAnnotations()).get(Annotations.DECISION);
      if (decision == null) {
        return new Fail(
            INSTALL,
            name,
            "a dry-run pod in " + enabled.get() + " came back without a decision",
            "the webhook was not called or did not inject: check the webhook configuration's"
                + " namespaceSelector and the replicas' logs");
      }
      return new Pass(INSTALL, name, "a dry-run pod in " + enabled.get() + ": " + decision);
    } catch (KubernetesClientException e) {
      String message = e.getStatus() == null ? null : e.getStatus().getMessage();
      if (message != null && message.contains("denied the request")) {
        return new Pass(
            INSTALL,
            name,
            "it answered and refused a dry-run pod in " + enabled.get() + ": " + message);
      }
      return new Fail(
          INSTALL,
          name,
          "a dry-run pod in " + enabled.get() + ": " + ClusterSnapshot.cause(e),
          "pods in opted-in namespaces cannot be created: check that a replica is ready and that"
              + " the caBundle matches (the checks above)");
    }
  }

  List<CheckResult> nodeHealth(InMemoryClusterView view, MeshConfig config) {
    NodeIndex index = view.nodes(clock.instant());
    List<CheckResult> out = new ArrayList<>();
    Viability viability = new Viability(config.engine().capabilities());
    var preference = config.engine().policy().preference();
    out.addAll(
        NodeChecks.paths(
            index.size(), NodePaths.withoutPath(index, viability, preference), preference));
    out.addAll(
        NodeChecks.probes(
            ProbeCoverage.assess(
                index.nodeNames(),
                view.probeReportTimes(),
                clock.instant(),
                config.engine().capabilities().probeTtl()),
            config.engine().capabilities().probeTtl()));
    List<PodsAtRisk.InjectedPod> pods = new ArrayList<>();
    try {
      // only what the check needs of each pod is kept; a page of full pods at a time at most
      ClusterSnapshot.pages(
          "running pods",
          options ->
              client
                  .pods()
                  .inAnyNamespace()
                  .list(
                      new ListOptionsBuilder(options)
                          .withFieldSelector("status.phase=Running")
                          .build()),
          pod -> injected(pod).ifPresent(pods::add));
    } catch (ClusterReadException e) {
      out.add(
          new Fail(
              NodeChecks.PODS,
              "can list running pods",
              e.getMessage(),
              "the check needs list on pods cluster-wide to find pods at risk"));
      return out;
    }
    out.addAll(NodeChecks.podsAtRisk(pods.size(), PodsAtRisk.find(pods, index, viability)));
    return out;
  }

  static Optional<PodsAtRisk.InjectedPod> injected(Pod pod) {
    String decision = mapOf(pod.getMetadata().getAnnotations()).get(Annotations.DECISION);
    if (decision == null || pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
      return Optional.empty();
    }
    return Optional.of(
        new PodsAtRisk.InjectedPod(
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            pod.getSpec().getNodeName(),
            decision));
  }

  private static MutatingWebhook entry(MutatingWebhookConfiguration webhook) {
    return webhook.getWebhooks().stream()
        .filter(h -> WEBHOOK_ENTRY.equals(h.getName()))
        .findFirst()
        .orElseThrow();
  }

  private static String decode(String base64) {
    return new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.US_ASCII);
  }

  @SuppressWarnings("unchecked")
  private static List<X509Certificate> certificates(String pem) throws GeneralSecurityException {
    Collection<X509Certificate> certs =
        (Collection<X509Certificate>)
            CertificateFactory.getInstance("X.509")
                .generateCertificates(
                    new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    return new ArrayList<>(certs);
  }

  private static Map<String, String> mapOf(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }

  private static int nz(Integer i) {
    return i == null ? 0 : i;
  }
}
