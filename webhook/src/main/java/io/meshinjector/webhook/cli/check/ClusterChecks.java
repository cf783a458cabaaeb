package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.check.NodeChecks;
import io.meshinjector.engine.check.NodePaths;
import io.meshinjector.engine.check.ProxyDrift;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.rules.Viability;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.cli.snapshot.ServerVersion;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The cluster side of {@code mesh-injector check}: one list per resource kind (streamed, each
 * object trimmed as it is decoded, as {@link ClusterSnapshot} reads), no per-node call; the
 * judgement of what was read is the pure {@link NodeChecks}. Every read that fails becomes a failed
 * check naming it, so one missing permission does not hide the rest of the report. What is checked
 * before an install is {@link PreInstallChecks}', after it {@link InstallChecks}'.
 */
public final class ClusterChecks {
  static final String API = "kubernetes-api";

  private final KubernetesClient client;
  private final Clock clock;
  private final PreInstallChecks preInstall;
  private final InstallChecks install;
  private final ViewChecks view;
  private final RevisionChecks revisions;

  /**
   * @param namespace the release's namespace: where {@code --pre} asks whether the installer may
   *     create, and where the installed replicas are looked for
   */
  public ClusterChecks(KubernetesClient client, String namespace, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.preInstall = new PreInstallChecks(client, namespace);
    this.install = new InstallChecks(client, namespace, clock);
    this.view = new ViewChecks(client, namespace);
    this.revisions = new RevisionChecks(client);
  }

  /**
   * Before install: the API server, the installer's RBAC, the nodes, the mesh CNI, Pod Security.
   */
  public List<CheckResult> pre(MeshConfig config) {
    List<CheckResult> out = new ArrayList<>();
    out.add(apiServer());
    out.addAll(preInstall.installerRbac());
    List<Namespace> namespaces = new ArrayList<>();
    Optional<NodeIndex> nodes =
        read(config, namespaces, true, out).map(v -> v.nodes(clock.instant()));
    nodes.ifPresent(index -> out.addAll(preInstall.nodeShapes(index)));
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
    out.addAll(preInstall.meshCni(config.engine().capabilities().cniDaemonSet(), nodes));
    out.addAll(preInstall.podSecurity(namespaces));
    return out;
  }

  /**
   * After install: the CRD, the webhook configuration and its caBundle, the certificate, the
   * replicas, a server-side dry run through the webhook, probe coverage, nodes without a path, pods
   * at risk, the data plane's drift from the release, the sources the replicas cannot read, and the
   * revisions: which each namespace's new pods get, and which running pods carry another.
   */
  public List<CheckResult> installed(Optional<MeshConfig> given) {
    List<CheckResult> out = new ArrayList<>();
    out.add(apiServer());
    out.add(install.crd());
    Optional<MutatingWebhookConfiguration> webhook = install.webhookConfiguration(out);
    String fullname = webhook.map(w -> w.getMetadata().getName()).orElse(null);
    Deployment deployment = null;
    if (webhook.isPresent()) {
      install.caBundleAndCertificate(webhook.get(), fullname, out);
      deployment = install.replicas(webhook.get(), fullname, out);
    }
    MeshConfig config = given.orElseGet(() -> install.installedConfig(fullname, out));
    List<Namespace> namespaces = new ArrayList<>();
    Optional<InMemoryClusterView> snapshot = read(config, namespaces, false, out);
    if (webhook.isPresent()) {
      out.add(install.dryRun(namespaces));
      out.addAll(
          view.blindSpots(
              fullname,
              deployment,
              config,
              snapshot.map(v -> v.nodes(clock.instant())),
              snapshot.map(InMemoryClusterView::cniReadyNodes).orElse(Set.of())));
    }
    Optional<ProxyDrift.Baseline> baseline = install.baseline(config, out);
    RunningPods running = RevisionChecks.runningPods(config, namespaces);
    snapshot.ifPresent(
        v -> out.addAll(install.nodeHealth(v, config, baseline, namespaces, running)));
    out.addAll(revisions.installed(config, namespaces, snapshot.isPresent(), running));
    return out;
  }

  /**
   * {@code check --retire REV}: may the release of revision REV be uninstalled? The API server,
   * then one line that passes only when nothing reaches REV or runs its proxies.
   *
   * @param given the config to judge by (its excluded namespaces); the embedded defaults without
   */
  public List<CheckResult> retire(String revision, Optional<MeshConfig> given) {
    List<CheckResult> out = new ArrayList<>();
    out.add(apiServer());
    out.addAll(revisions.retire(revision, given.orElseGet(ConfigLoader::defaults)));
    return out;
  }

  CheckResult apiServer() {
    VersionInfo info;
    try {
      info = client.getKubernetesVersion();
    } catch (KubernetesClientException e) {
      return CheckResult.fail(
          API,
          "can reach the API server",
          ClusterSnapshot.cause(e),
          "check the kubeconfig's server address and credentials (kubectl version)");
    }
    Optional<int[]> parsed = ServerVersion.parse(info);
    String version = info == null ? "unknown" : info.getGitVersion();
    if (parsed.isEmpty()) {
      return CheckResult.warn(
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
      return CheckResult.warn(
          API,
          "API server version",
          detail,
          "Kubernetes 1.30 or later runs every part of the chart (docs/deploy.md)");
    }
    return CheckResult.pass(API, "API server version", detail);
  }

  /** The view, read once; a failure to read it becomes a failed check. */
  Optional<InMemoryClusterView> read(
      MeshConfig config, List<Namespace> namespaces, boolean preInstall, List<CheckResult> out) {
    ClusterSnapshot.Snapshot snapshot;
    try {
      snapshot = ClusterSnapshot.read(client, config.engine().capabilities(), namespaces::add);
    } catch (ClusterReadException e) {
      out.add(
          CheckResult.fail(
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
            CheckResult.warn(
                NodeChecks.NODES,
                "the cluster view is partial",
                note,
                "docs/operations.md#readiness-what-a-replica-waits-for"));
      }
    }
    return Optional.of(snapshot.view());
  }

  static Map<String, String> mapOf(Map<String, String> m) {
    return m == null ? Map.of() : m;
  }

  static int nz(Integer i) {
    return i == null ? 0 : i;
  }
}
