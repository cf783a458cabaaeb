package io.meshinjector.webhook.cli.check;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.certs.CaBundle;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.CertsException;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.check.NodeChecks;
import io.meshinjector.engine.check.NodePaths;
import io.meshinjector.engine.check.PodsAtRisk;
import io.meshinjector.engine.check.ProbeCoverage;
import io.meshinjector.engine.check.ProxyDrift;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.linkerd.LinkerdAnnotation;
import io.meshinjector.engine.rules.Viability;
import io.meshinjector.templates.TemplateConfig;
import io.meshinjector.webhook.cli.snapshot.ClusterReadException;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.controllers.InjectionLabels;
import io.meshinjector.webhook.revisions.RevisionsRead;
import io.meshinjector.webhook.revisions.RouteEntries;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What {@code check} asks of an installed release: the CRD, the webhook configuration and its
 * caBundle, the serving certificate, the replicas, a dry run through the webhook, and the nodes and
 * running pods as the webhook's own config judges them.
 */
final class InstallChecks {
  static final String INSTALL = "mesh-injector install";

  static final String CRD = NodeCapabilityStatus.PLURAL + "." + NodeCapabilityStatus.GROUP;

  /**
   * The entry every revision's own configuration has (its route entries may have moved to a tag
   * object); tags have none, so it also tells a release's configuration from a tag's.
   */
  static final String WEBHOOK_ENTRY = RouteEntries.CATCH_ALL;

  private final KubernetesClient client;
  private final String namespace;
  private final Clock clock;

  InstallChecks(KubernetesClient client, String namespace, Clock clock) {
    this.client = client;
    this.namespace = namespace;
    this.clock = clock;
  }

  CheckResult crd() {
    CustomResourceDefinition crd;
    try {
      crd = client.apiextensions().v1().customResourceDefinitions().withName(CRD).get();
    } catch (KubernetesClientException e) {
      return CheckResult.fail(
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
      return CheckResult.fail(
          INSTALL,
          "the NodeCapability CRD is established",
          crd == null ? CRD + " not found" : CRD + " is not established yet",
          "install the chart (helm install), which ships the CRD; helm does not upgrade CRDs:"
              + " kubectl apply -f helm/mesh-injector/templates/crd-nodecapabilities.yaml");
    }
    return CheckResult.pass(INSTALL, "the NodeCapability CRD is established", CRD);
  }

  Optional<MutatingWebhookConfiguration> webhookConfiguration(List<CheckResult> out) {
    List<MutatingWebhookConfiguration> all;
    try {
      all = client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems();
    } catch (KubernetesClientException e) {
      out.add(
          CheckResult.fail(
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
            // with several revisions, the one installed in the namespace checked
            .sorted(
                java.util.Comparator.comparing(
                    w -> !namespace.equals(RevisionsRead.release(w).namespace())))
            .findFirst();
    if (ours.isEmpty()) {
      out.add(
          CheckResult.fail(
              INSTALL,
              "the webhook configuration exists",
              "no MutatingWebhookConfiguration has the entry " + WEBHOOK_ENTRY,
              "install the chart: helm install mesh-injector helm/mesh-injector -n " + namespace));
    } else {
      out.add(
          CheckResult.pass(
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
          CheckResult.fail(
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
          CheckResult.warn(
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
          CheckResult.warn(
              INSTALL,
              "the webhook's caBundle verifies the serving certificate",
              "no Secret " + namespace + "/" + fullname + "-tls with a tls.crt",
              "with tls.mode=secret the Secret is yours: check it against the caBundle by hand"));
      return;
    }
    try {
      List<X509Certificate> cas = CaBundle.fromBase64(bundle);
      // the leaf comes first in tls.crt; a chain may follow it
      X509Certificate serving = CaBundle.fromBase64(secret.getData().get("tls.crt")).get(0);
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
            CheckResult.pass(
                INSTALL,
                "the webhook's caBundle verifies the serving certificate",
                cas.size() + " CA certificates in the bundle"));
      } else {
        out.add(
            CheckResult.fail(
                INSTALL,
                "the webhook's caBundle verifies the serving certificate",
                "no CA of the caBundle signed " + serving.getSubjectX500Principal().getName(),
                "the API server refuses the webhook's TLS: helm upgrade (self-managed) or"
                    + " re-issue the Secret from the caBundle's CA (docs/certificates.md)"));
      }
      String host = host(entry);
      if (host != null && !CertificateValidator.matchesHost(serving, host)) {
        out.add(
            CheckResult.fail(
                INSTALL,
                "the serving certificate names the host the API server calls",
                host + " is not among its names " + CertificateValidator.namesOf(serving),
                "the API server refuses the webhook's TLS: re-issue the certificate for "
                    + host
                    + " (docs/certificates.md)"));
      } else if (host != null) {
        out.add(
            CheckResult.pass(
                INSTALL, "the serving certificate names the host the API server calls", host));
      }
      out.add(
          NodeChecks.certificate(
              "the serving certificate", serving.getNotAfter().toInstant(), clock.instant()));
    } catch (CertsException | IllegalArgumentException | IndexOutOfBoundsException e) {
      out.add(
          CheckResult.fail(
              INSTALL,
              "the webhook's caBundle verifies the serving certificate",
              "unreadable PEM: " + e.getMessage(),
              "the caBundle and the Secret's tls.crt must be base64 of PEM certificates"));
    }
  }

  /**
   * The replicas' readiness; returns the release's Deployment as read (null when absent or
   * unreadable), which the view checks read again from this one GET.
   */
  Deployment replicas(
      MutatingWebhookConfiguration webhook, String fullname, List<CheckResult> out) {
    String url = entry(webhook).getClientConfig().getUrl();
    Deployment d;
    try {
      d = client.apps().deployments().inNamespace(namespace).withName(fullname).get();
    } catch (KubernetesClientException e) {
      out.add(
          CheckResult.warn(
              INSTALL,
              "webhook replicas ready",
              ClusterSnapshot.cause(e),
              "grant get on deployments in " + namespace));
      return null;
    }
    int ready =
        d == null || d.getStatus() == null ? 0 : ClusterChecks.nz(d.getStatus().getReadyReplicas());
    int wanted = d == null || d.getSpec() == null ? 0 : ClusterChecks.nz(d.getSpec().getReplicas());
    // a replica turns Ready only once its view of Nodes and Namespaces is in sync (/readyz)
    String detail = ready + " of " + wanted + " ready (Ready means its cluster view is in sync)";
    if (ready > 0) {
      out.add(CheckResult.pass(INSTALL, "webhook replicas ready", detail));
    } else if (url != null) {
      out.add(
          CheckResult.warn(
              INSTALL,
              "webhook replicas ready",
              detail + "; the webhook configuration calls " + url + ", outside the Deployment",
              "the dry run below says whether that address answers"));
    } else {
      out.add(
          CheckResult.fail(
              INSTALL,
              "webhook replicas ready",
              d == null ? "no Deployment " + namespace + "/" + fullname : detail,
              "pods in opted-in namespaces are refused until one is ready: kubectl -n "
                  + namespace
                  + " describe deployment "
                  + fullname
                  + " and the replicas' logs"));
    }
    return d;
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
          CheckResult.warn(
              INSTALL,
              "the release's config is readable",
              ClusterSnapshot.cause(e),
              "the checks below use the embedded defaults; give --config FILE"));
    }
    return ConfigLoader.defaults();
  }

  /**
   * What the installed release gives a pod now, from its config as the replicas load it: the proxy
   * version, the config digest (computed by this binary from the release's ConfigMap; the built-in
   * templates are this binary's, so run the check of the release's version) and the pins each
   * flavour reads. Empty, with a warning, when the config does not bind.
   */
  Optional<ProxyDrift.Baseline> baseline(MeshConfig config, List<CheckResult> out) {
    TemplateConfig templates;
    try {
      templates = TemplateConfig.from(config);
    } catch (IllegalArgumentException e) {
      // a ConfigException, or a template that does not parse
      out.add(
          CheckResult.warn(
              ProxyDrift.GROUP,
              "the release's injection config binds",
              e.getMessage(),
              "the data plane cannot be compared with it; check the release's values"));
      return Optional.empty();
    }
    List<String> versionPins =
        templates.linkerdAnnotations() ? List.of(LinkerdAnnotation.PROXY_VERSION.key()) : List.of();
    // istiod takes sidecar.istio.io/proxyImage, tag included, as the pod's whole proxy image
    List<String> imagePins =
        "istio".equals(config.tree().path("mesh").asText("linkerd"))
            ? List.of(ISTIO_PROXY_IMAGE)
            : List.of();
    return Optional.of(
        new ProxyDrift.Baseline(
            templates.proxy().version(),
            templates.configDigest(),
            templates.proxyContainerName(),
            versionPins,
            imagePins));
  }

  static final String ISTIO_PROXY_IMAGE = "sidecar.istio.io/proxyImage";

  /** A server-side dry run of a pod in an opted-in namespace: the API server calls the webhook. */
  CheckResult dryRun(List<Namespace> namespaces) {
    String name = "the API server calls the webhook";
    Optional<String> enabled =
        namespaces.stream()
            .filter(
                n ->
                    io.meshinjector.engine.revisions.RevisionNames.DEFAULT_ROUTE.equals(
                        ClusterChecks.mapOf(n.getMetadata().getLabels()).get(InjectionLabels.KEY)))
            .map(n -> n.getMetadata().getName())
            .sorted()
            .findFirst();
    if (enabled.isEmpty()) {
      return CheckResult.warn(
          INSTALL,
          name,
          "no namespace carries "
              + InjectionLabels.KEY
              + "="
              + io.meshinjector.engine.revisions.RevisionNames.DEFAULT_ROUTE
              + ", so no pod was tried",
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
      String decision =
          ClusterChecks.mapOf(answer.getMetadata().getAnnotations()).get(Annotations.DECISION);
      if (decision == null) {
        return CheckResult.fail(
            INSTALL,
            name,
            "a dry-run pod in " + enabled.get() + " came back without a decision",
            "the webhook was not called or did not inject: check the webhook configuration's"
                + " namespaceSelector and the replicas' logs");
      }
      return CheckResult.pass(INSTALL, name, "a dry-run pod in " + enabled.get() + ": " + decision);
    } catch (KubernetesClientException e) {
      String message = e.getStatus() == null ? null : e.getStatus().getMessage();
      // Pod Security admission validates after the mutating webhooks: the webhook ran, and its
      // pod (with the init path's NET_ADMIN, say) is what the namespace's level forbids
      if (message != null && message.contains("violates PodSecurity")) {
        return CheckResult.warn(
            INSTALL,
            name,
            "a dry-run pod in " + enabled.get() + " was injected, then refused: " + message,
            "pods injected there are refused by the namespace's Pod Security level: install the"
                + " mesh CNI so they take the unprivileged CNI path (docs/how-it-decides.md)");
      }
      if (message != null && message.contains("denied the request")) {
        return CheckResult.pass(
            INSTALL,
            name,
            "it answered and refused a dry-run pod in " + enabled.get() + ": " + message);
      }
      return CheckResult.fail(
          INSTALL,
          name,
          "a dry-run pod in " + enabled.get() + ": " + ClusterSnapshot.cause(e),
          "pods in opted-in namespaces cannot be created: check that a replica is ready and that"
              + " the caBundle matches (the checks above)");
    }
  }

  /**
   * Nodes without a path, probe coverage, and the running pods, listed once cluster-wide for both
   * the pods at risk and, where {@code baseline} is given, the data plane's drift.
   *
   * @param namespaces the namespaces as read, for the proxy versions pinned on them
   * @param revisions also reads each running pod, for the revisions checks
   */
  List<CheckResult> nodeHealth(
      InMemoryClusterView view,
      MeshConfig config,
      Optional<ProxyDrift.Baseline> baseline,
      List<Namespace> namespaces,
      RunningPods revisions) {
    NodeIndex index = view.nodes(clock.instant());
    List<CheckResult> out = new ArrayList<>();
    Viability viability = new Viability(config.engine().capabilities());
    var preference = config.engine().policy().preference();
    out.addAll(
        NodeChecks.paths(
            index.size(), NodePaths.withoutPath(index, viability, preference), preference));
    out.addAll(
        NodeChecks.nodeMatrix(
            NodePaths.withVerdict(index, CapabilityKey.OS, Verdict.WINDOWS),
            NodePaths.withVerdict(index, CapabilityKey.IPV6_PODS, Verdict.UNKNOWN),
            config.engine().capabilities().assumeUnknown().ipv6Pods()));
    out.addAll(
        NodeChecks.probes(
            ProbeCoverage.assess(
                index.nodeNames(),
                view.probeReportTimes(),
                clock.instant(),
                config.engine().capabilities().probeTtl()),
            config.engine().capabilities().probeTtl()));
    List<PodsAtRisk.InjectedPod> pods = new ArrayList<>();
    List<ProxyDrift.DataPlanePod> dataPlane = new ArrayList<>();
    try {
      // only what the check needs of each pod is kept; one full pod at a time at most
      ClusterSnapshot.forEach(
          "running pods",
          client,
          "api/v1/pods",
          Map.of("fieldSelector", "status.phase=Running"),
          Pod.class,
          pod -> {
            injected(pod).ifPresent(pods::add);
            baseline.flatMap(b -> ProxyDrift.of(pod, b)).ifPresent(dataPlane::add);
            revisions.accept(pod);
          });
      revisions.listed();
    } catch (ClusterReadException e) {
      out.add(
          CheckResult.fail(
              NodeChecks.PODS,
              "can list running pods",
              e.getMessage(),
              "the check needs list on pods cluster-wide to find pods at risk"));
      return out;
    }
    out.addAll(NodeChecks.podsAtRisk(pods.size(), PodsAtRisk.find(pods, index, viability)));
    if (baseline.isPresent()) {
      Map<String, Map<String, String>> pins = new HashMap<>();
      for (Namespace n : namespaces) {
        pins.put(n.getMetadata().getName(), ClusterChecks.mapOf(n.getMetadata().getAnnotations()));
      }
      out.addAll(
          ProxyDrift.results(
              ProxyDrift.assess(dataPlane, baseline.get(), n -> pins.getOrDefault(n, Map.of())),
              baseline.get()));
    }
    return out;
  }

  static Optional<PodsAtRisk.InjectedPod> injected(Pod pod) {
    String decision =
        ClusterChecks.mapOf(pod.getMetadata().getAnnotations()).get(Annotations.DECISION);
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

  /** The host the API server connects to: the Service's DNS name, or the url's host. */
  static String host(MutatingWebhook entry) {
    var config = entry.getClientConfig();
    if (config == null) {
      return null;
    }
    if (config.getService() != null) {
      return config.getService().getName() + "." + config.getService().getNamespace() + ".svc";
    }
    if (config.getUrl() != null) {
      try {
        return URI.create(config.getUrl()).getHost();
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }

  private static MutatingWebhook entry(MutatingWebhookConfiguration webhook) {
    return webhook.getWebhooks().stream()
        .filter(h -> WEBHOOK_ENTRY.equals(h.getName()))
        .findFirst()
        .orElseThrow();
  }
}
