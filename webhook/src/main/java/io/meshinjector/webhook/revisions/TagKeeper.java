package io.meshinjector.webhook.revisions;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.VersionInfo;
import io.meshinjector.engine.revisions.RevisionConfig;
import io.meshinjector.engine.revisions.RevisionNames;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elected replica's care of the tags that point at its revision: it creates the tag {@code
 * default} when the cluster has none and no revision called {@code default} serves it itself (never
 * moving one that exists), and keeps every tag pointing here in step with its own webhook
 * configuration, whose CA bundle the certificate leader or cert-manager renews and whose client a
 * {@code helm upgrade} may change. It writes only tags whose revision label names its own revision,
 * each update at the resourceVersion it read, so a tag moved meanwhile by {@code mesh-injector tag
 * set} is never moved back.
 */
public final class TagKeeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TagKeeper.class);
  private static final Duration PERIOD = Duration.ofSeconds(15);

  private final KubernetesClient client;
  private final RevisionsWatch watch;
  private final RevisionConfig revision;
  private final String ownConfiguration;
  private final ScheduledExecutorService executor;
  private ScheduledFuture<?> task;
  private Boolean conditionsServed;
  private boolean warnedMissing;

  /**
   * @param ownConfiguration this release's webhook configuration ({@code
   *     webhook.tls.webhookConfigurationName})
   */
  public TagKeeper(
      KubernetesClient client,
      RevisionsWatch watch,
      RevisionConfig revision,
      String ownConfiguration) {
    this.client = Objects.requireNonNull(client, "client");
    this.watch = Objects.requireNonNull(watch, "watch");
    this.revision = Objects.requireNonNull(revision, "revision");
    this.ownConfiguration = Objects.requireNonNull(ownConfiguration, "ownConfiguration");
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tag-keeper");
              t.setDaemon(true);
              return t;
            });
    watch.onChange(this::nudge);
  }

  public synchronized void startLeading() {
    if (task == null) {
      task =
          executor.scheduleWithFixedDelay(
              this::runOnce, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  public synchronized void stopLeading() {
    if (task != null) {
      task.cancel(false);
      task = null;
    }
  }

  private synchronized void nudge() {
    if (task != null) {
      executor.execute(this::runOnce);
    }
  }

  /** One pass; public for the tests, which drive it without a schedule. */
  public void runOnce() {
    try {
      keep();
    } catch (KubernetesClientException e) {
      LOG.warn(
          "tags: {} ({}); retrying in {} s",
          e.getCode() == 409 ? "a tag changed while it was written" : "writing a tag failed",
          e.getMessage(),
          PERIOD.toSeconds());
    } catch (RuntimeException e) {
      LOG.error("tags: keeping the tags of revision {} failed", revision.name(), e);
    }
  }

  private void keep() {
    Optional<MutatingWebhookConfiguration> own = watch.configuration(ownConfiguration);
    if (own.isEmpty()) {
      if (!warnedMissing) {
        warnedMissing = true;
        LOG.warn(
            "tags: this revision's webhook configuration {} is not there (or not labelled {}):"
                + " no tag is created or kept until it is",
            ownConfiguration,
            RevisionNames.REVISION_LABEL);
      }
      return;
    }
    warnedMissing = false;
    if (!conditionsServed()) {
      return;
    }
    String defaultTag = RevisionNames.tagObjectName(RevisionNames.DEFAULT);
    if (revision.createDefaultTag()
        && watch.configuration(defaultTag).isEmpty()
        && !watch.get().revisions().containsKey(RevisionNames.DEFAULT)) {
      MutatingWebhookConfiguration created =
          TagWebhooks.pointing(RevisionNames.DEFAULT, own.get(), null);
      try {
        webhooks().resource(created).create();
        LOG.info(
            "tags: created tag {} pointing at revision {} (the cluster had none)",
            RevisionNames.DEFAULT,
            revision.name());
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        // another release's leader made it a moment ago: it stays where it points
      }
    }
    for (MutatingWebhookConfiguration tag : watch.configurations()) {
      Optional<String> name = TagWebhooks.tagOf(tag);
      if (name.isEmpty() || !TagWebhooks.revisionOf(tag).orElse("").equals(revision.name())) {
        continue;
      }
      MutatingWebhookConfiguration desired = TagWebhooks.pointing(name.get(), own.get(), null);
      boolean sameOwner =
          tag.getMetadata().getOwnerReferences() != null
              && tag.getMetadata()
                  .getOwnerReferences()
                  .equals(desired.getMetadata().getOwnerReferences());
      if (sameOwner && Objects.equals(tag.getWebhooks(), desired.getWebhooks())) {
        continue;
      }
      desired.getMetadata().setResourceVersion(tag.getMetadata().getResourceVersion());
      webhooks().resource(desired).update();
      LOG.info(
          "tags: tag {} brought in step with revision {}'s webhook configuration (client and CA"
              + " bundle)",
          name.get(),
          revision.name());
    }
  }

  /**
   * Whether the API server evaluates matchConditions (1.28 and later), which a tag's entries need:
   * without them two tags' entries would both fail closed for one pod.
   */
  private boolean conditionsServed() {
    if (conditionsServed == null) {
      VersionInfo v = client.getKubernetesVersion();
      int minor = Integer.parseInt(v.getMinor().replaceAll("[^0-9].*$", ""));
      conditionsServed = Integer.parseInt(v.getMajor()) > 1 || minor >= 28;
      if (!conditionsServed) {
        LOG.warn(
            "tags: Kubernetes {}.{} evaluates no matchConditions (1.28+): no tag is created;"
                + " this release injects through its catch-all entry, failing open",
            v.getMajor(),
            v.getMinor());
      }
    }
    return conditionsServed;
  }

  private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          MutatingWebhookConfiguration,
          io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationList,
          io.fabric8.kubernetes.client.dsl.Resource<MutatingWebhookConfiguration>>
      webhooks() {
    return client.admissionRegistration().v1().mutatingWebhookConfigurations();
  }

  @Override
  public synchronized void close() {
    stopLeading();
    executor.shutdownNow();
  }
}
