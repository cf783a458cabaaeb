package io.meshinjector.webhook.revisions;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's revisions and tags, from the webhook configurations labelled {@value
 * RevisionNames#REVISION_LABEL}: a handful of small objects, watched. Optional, like the probe's
 * NodeCapabilities: a release whose ServiceAccount may not list webhook configurations (a chart
 * from before revisions) sees {@link Revisions#unknown()}, and routes every pod it is sent to its
 * own revision, as a single release always did.
 */
public final class RevisionsWatch implements Supplier<Revisions>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RevisionsWatch.class);

  private final KubernetesClient client;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile Revisions current = Revisions.unknown();
  private volatile boolean failedOnce;
  private volatile boolean settled;
  private SharedIndexInformer<MutatingWebhookConfiguration> informer;

  public RevisionsWatch(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /** Called after every change to the cluster's revisions or tags. */
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public Revisions get() {
    return current;
  }

  /**
   * Whether the first list is in, or could not be had: until then {@link #get} says nothing of the
   * cluster, and the namespaces' labels wait rather than name entries that may not exist.
   */
  public boolean settled() {
    return settled;
  }

  /** The webhook configurations as last seen, revisions' and tags'. */
  public Collection<MutatingWebhookConfiguration> configurations() {
    return informer == null ? List.of() : List.copyOf(informer.getStore().list());
  }

  /** One configuration by name, as last seen. */
  public Optional<MutatingWebhookConfiguration> configuration(String name) {
    return informer == null
        ? Optional.empty()
        : Optional.ofNullable(informer.getStore().getByKey(name));
  }

  public synchronized void start() {
    informer =
        client
            .admissionRegistration()
            .v1()
            .mutatingWebhookConfigurations()
            .withLabel(RevisionNames.REVISION_LABEL)
            .runnableInformer(0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(MutatingWebhookConfiguration obj) {
            changed();
          }

          @Override
          public void onUpdate(
              MutatingWebhookConfiguration before, MutatingWebhookConfiguration after) {
            changed();
          }

          @Override
          public void onDelete(MutatingWebhookConfiguration obj, boolean unknownFinalState) {
            changed();
          }
        });
    informer.exceptionHandler(
        (started, t) -> {
          if (!failedOnce) {
            failedOnce = true;
            settled = true;
            LOG.warn(
                "revisions: cannot watch the cluster's webhook configurations ({}): every pod"
                    + " sent here is taken as this revision's, as with a single release; it"
                    + " joins once it can be read",
                t.toString());
          }
          return true;
        });
    informer
        .start()
        .whenComplete(
            (done, failed) -> {
              if (failed == null) {
                settled = true;
                changed();
              }
            });
    LOG.info(
        "revisions: watching webhook configurations labelled {}", RevisionNames.REVISION_LABEL);
  }

  private void changed() {
    Revisions next = RevisionsRead.from(new ArrayList<>(informer.getStore().list()));
    if (!next.equals(current)) {
      LOG.info("revisions: served {}, tags {}", next.revisions().keySet(), next.tags());
    }
    current = next;
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.warn("revisions: a listener failed: {}", e.toString());
      }
    }
  }

  @Override
  public synchronized void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
