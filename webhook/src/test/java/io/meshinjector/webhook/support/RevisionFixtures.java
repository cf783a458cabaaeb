package io.meshinjector.webhook.support;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.revisions.RouteEntries;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Revisions and tags as the chart and the tag keeper leave them in a cluster, on fabric8's CRUD
 * mock server: a revision's own webhook configuration (labelled, with Helm's annotations and the
 * catch-all entry), its release's webhook Deployment, a tag pointing at it, and a kubeconfig naming
 * the mock server for the commands under test.
 */
public final class RevisionFixtures {
  private RevisionFixtures() {}

  /** The release of revision {@code rev}: {@code mi-<rev>} in namespace {@code mesh-<rev>}. */
  public static String release(String rev) {
    return "mi-" + rev;
  }

  public static String releaseNamespace(String rev) {
    return "mesh-" + rev;
  }

  /** A base64 CA bundle of one (fake) certificate; the bundle union only reads the PEM blocks. */
  public static String bundle(String body) {
    String pem = "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
  }

  /** The PEM of every certificate in a base64 bundle. */
  public static String pem(String bundle) {
    return new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII);
  }

  /** Revision {@code rev}'s own webhook configuration, as the chart renders it. */
  public static MutatingWebhookConfiguration revision(String rev, String caBody) {
    return new MutatingWebhookConfigurationBuilder()
        .withNewMetadata()
        .withName(release(rev))
        .withUid(UUID.nameUUIDFromBytes(rev.getBytes(StandardCharsets.UTF_8)).toString())
        .addToLabels(RevisionNames.REVISION_LABEL, rev)
        .addToLabels("app.kubernetes.io/instance", release(rev))
        .addToAnnotations("meta.helm.sh/release-name", release(rev))
        .addToAnnotations("meta.helm.sh/release-namespace", releaseNamespace(rev))
        .endMetadata()
        .addNewWebhook()
        .withName(RouteEntries.CATCH_ALL)
        .withAdmissionReviewVersions("v1")
        .withSideEffects("None")
        .withFailurePolicy("Ignore")
        .withNewClientConfig()
        .withCaBundle(bundle(caBody))
        .withNewService()
        .withNamespace(releaseNamespace(rev))
        .withName(release(rev))
        .withPath(RouteEntries.MUTATE + RouteEntries.UNROUTED)
        .endService()
        .endClientConfig()
        .withNewNamespaceSelector()
        .addNewMatchExpression()
        .withKey("kubernetes.io/metadata.name")
        .withOperator("NotIn")
        .withValues("kube-system")
        .endMatchExpression()
        .endNamespaceSelector()
        .endWebhook()
        .build();
  }

  /** Creates revision {@code rev}'s configuration and its release's webhook Deployment. */
  public static MutatingWebhookConfiguration serve(
      KubernetesClient client, String rev, String caBody, int readyReplicas) {
    MutatingWebhookConfiguration mwc =
        client
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .resource(revision(rev, caBody))
            .create();
    webhookDeployment(client, rev, readyReplicas);
    return mwc;
  }

  /** The release's webhook Deployment, labelled as templates/webhook-deployment.yaml labels it. */
  public static void webhookDeployment(KubernetesClient client, String rev, int readyReplicas) {
    Deployment d =
        new DeploymentBuilder()
            .withNewMetadata()
            .withNamespace(releaseNamespace(rev))
            .withName(release(rev))
            .addToLabels("app.kubernetes.io/instance", release(rev))
            .addToLabels("app.kubernetes.io/component", "webhook")
            .endMetadata()
            .withNewSpec()
            .withReplicas(2)
            .endSpec()
            .withNewStatus()
            .withReadyReplicas(readyReplicas)
            .endStatus()
            .build();
    client.apps().deployments().inNamespace(releaseNamespace(rev)).resource(d).create();
  }

  /** Tag {@code tag} pointing at the revision whose configuration is {@code revision}, created. */
  public static MutatingWebhookConfiguration tag(
      KubernetesClient client, String tag, MutatingWebhookConfiguration revision) {
    return client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(TagWebhooks.pointing(tag, revision, null))
        .create();
  }

  /** A namespace, with annotations and the routing label its labeller would give it. */
  public static void namespace(
      KubernetesClient client, String name, Map<String, String> annotations, String route) {
    Map<String, String> labels = new HashMap<>();
    if (route != null) {
      labels.put(RevisionNames.ROUTE_LABEL, route);
    }
    client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .withAnnotations(annotations)
                .endMetadata()
                .build())
        .create();
  }

  /** The API server's answer to {@code GET /version}: Kubernetes 1.{@code minor}. */
  public static void apiServer(KubernetesMockServer server, int minor) {
    server.setVersionInfo(
        new VersionInfo.Builder()
            .withMajor("1")
            .withMinor(String.valueOf(minor))
            .withGitVersion("v1." + minor + ".3")
            .build());
  }

  /** A kubeconfig as kubectl writes it, naming {@code client}'s server. */
  public static Path kubeconfig(Path dir, KubernetesClient client) throws Exception {
    return kubeconfig(dir.resolve("kubeconfig"), client.getConfiguration().getMasterUrl());
  }

  /** A kubeconfig as kubectl writes it, at {@code file}, naming {@code server}. */
  public static Path kubeconfig(Path file, String server) throws Exception {
    Files.writeString(
        file,
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "clusters:\n"
            + "- name: mock\n"
            + "  cluster: {server: '"
            + server
            + "', insecure-skip-tls-verify: true}\n"
            + "users:\n"
            + "- name: tester\n"
            + "  user: {token: test-token}\n"
            + "contexts:\n"
            + "- name: mock\n"
            + "  context: {cluster: mock, user: tester, namespace: default}\n"
            + "current-context: mock\n");
    return file;
  }
}
