package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.lists.Trimmed;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer-fed view as admissions see it. A namespace the cache does not hold yet is read from
 * the API server once: {@code kubectl apply} of one file with a namespace and its Deployment
 * creates pods milliseconds after the namespace, before the watch has delivered it, and those pods
 * must not be taken as being in a namespace without injection. A namespace in the cache costs no
 * API call.
 */
public final class LiveNamespaces implements ClusterView {
  private static final Logger LOG = LoggerFactory.getLogger(LiveNamespaces.class);

  private final InMemoryClusterView cache;
  private final KubernetesClient reader;
  private final Supplier<Revisions> revisions;

  /**
   * @param reader a client whose request timeout is the short one an admission can wait, and which
   *     does not retry
   * @param revisions the cluster's revisions and tags as the watch last saw them
   */
  public LiveNamespaces(
      InMemoryClusterView cache, KubernetesClient reader, Supplier<Revisions> revisions) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.revisions = Objects.requireNonNull(revisions, "revisions");
  }

  @Override
  public Revisions revisions() {
    return revisions.get();
  }

  @Override
  public Optional<Namespace> namespace(String name) {
    Optional<Namespace> cached = cache.namespace(name);
    if (cached.isPresent()) {
      return cached;
    }
    Namespace live;
    try {
      live = reader.namespaces().withName(name).get();
    } catch (RuntimeException e) {
      LOG.warn(
          "namespace {} is not in the cache and reading it failed ({}): taken as absent",
          name,
          e.toString());
      return Optional.empty();
    }
    if (live == null) {
      return Optional.empty();
    }
    LOG.info("namespace {} was not in the cache yet: read it live", name);
    Namespace trimmed = Trimmed.namespace(live);
    // the watch delivers it moments later anyway; until then the next pod needs no read
    cache.upsertNamespace(trimmed);
    return Optional.of(trimmed);
  }

  @Override
  public NodeIndex nodes(Instant now) {
    return cache.nodes(now);
  }

  @Override
  public NodeIndex latestNodes(Instant now) {
    return cache.latestNodes(now);
  }
}
