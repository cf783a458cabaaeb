package io.meshinjector.webhook.cli.tag;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.cli.snapshot.ClusterSnapshot;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a revision answers. A tag moved onto a revision that does not answer would fail closed on
 * every pod of its namespaces, so the old revision keeps the tag until the new one is up. Reached
 * through its Service (the chart's default): its release's webhook Deployment has a ready replica,
 * found by the labels the chart gives it (templates/webhook-deployment.yaml), not by its name,
 * which a values file may change. Reached by {@code url} (replicas outside the cluster's pod
 * network, where there may be no Deployment at all): its {@code /readyz} there answers 200 over TLS
 * checked against the configuration's own CA bundle, as the API server would check it.
 */
public final class ReleaseReadiness {
  static final String INSTANCE = "app.kubernetes.io/instance";
  static final String COMPONENT = "app.kubernetes.io/component";
  static final String WEBHOOK = "webhook";

  private ReleaseReadiness() {}

  /**
   * @throws TagRefused naming what is missing when no replica of {@code revision}'s release is
   *     ready, or when that cannot be read
   */
  public static void requireReady(
      KubernetesClient client,
      String revision,
      Revisions.Release release,
      MutatingWebhookConfiguration configuration) {
    Optional<WebhookClientConfig> byUrl =
        TagWebhooks.catchAll(configuration)
            .map(w -> w.getClientConfig())
            .filter(c -> c != null && c.getUrl() != null && !c.getUrl().isEmpty());
    if (byUrl.isPresent()) {
      UrlReadiness.require(revision, byUrl.get());
      return;
    }
    String where = "release " + release.describe();
    if ("?".equals(release.namespace()) || "?".equals(release.name())) {
      throw new TagRefused(
          "revision "
              + revision
              + "'s webhook configuration "
              + release.webhookConfiguration()
              + " names no Helm release (annotations meta.helm.sh/release-name and"
              + " -namespace), so whether it answers cannot be told; install it with the chart");
    }
    List<Deployment> found;
    try {
      found =
          client
              .apps()
              .deployments()
              .inNamespace(release.namespace())
              .withLabels(Map.of(INSTANCE, release.name(), COMPONENT, WEBHOOK))
              .list()
              .getItems();
    } catch (KubernetesClientException e) {
      throw new TagRefused(
          "cannot tell whether revision "
              + revision
              + " answers: listing the Deployments of "
              + where
              + " failed: "
              + ClusterSnapshot.cause(e)
              + "; grant list on deployments in "
              + release.namespace());
    }
    if (found.isEmpty()) {
      throw new TagRefused(
          "revision "
              + revision
              + " does not answer: "
              + where
              + " has no webhook Deployment (labelled "
              + INSTANCE
              + "="
              + release.name()
              + ", "
              + COMPONENT
              + "="
              + WEBHOOK
              + ") in namespace "
              + release.namespace());
    }
    int ready = 0;
    int wanted = 0;
    for (Deployment d : found) {
      ready +=
          d.getStatus() == null || d.getStatus().getReadyReplicas() == null
              ? 0
              : d.getStatus().getReadyReplicas();
      wanted +=
          d.getSpec() == null || d.getSpec().getReplicas() == null ? 0 : d.getSpec().getReplicas();
    }
    if (ready == 0) {
      throw new TagRefused(
          "revision "
              + revision
              + " does not answer: the webhook Deployment of "
              + where
              + " has no ready replica (0 of "
              + wanted
              + "); kubectl -n "
              + release.namespace()
              + " get pods -l "
              + INSTANCE
              + "="
              + release.name()
              + " says why");
    }
  }
}
