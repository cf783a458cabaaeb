package io.meshinjector.webhook.cli.snapshot;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.revisions.Revisions;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** A view with the cluster's revisions and tags as the CLI read them beside it. */
public final class WithRevisions implements ClusterView {
  private final ClusterView delegate;
  private final Revisions revisions;

  public WithRevisions(ClusterView delegate, Revisions revisions) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.revisions = Objects.requireNonNull(revisions, "revisions");
  }

  @Override
  public Optional<Namespace> namespace(String name) {
    return delegate.namespace(name);
  }

  @Override
  public NodeIndex nodes(Instant now) {
    return delegate.nodes(now);
  }

  @Override
  public NodeIndex latestNodes(Instant now) {
    return delegate.latestNodes(now);
  }

  @Override
  public Revisions revisions() {
    return revisions;
  }
}
