package io.meshinjector.webhook.cli.snapshot;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.revisions.Revisions;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The CLI's view: someone who runs {@code inject} on a manifest asked for injection, so a namespace
 * the {@code --cluster} files do not describe counts as {@code inject: enabled}. A namespace the
 * files do describe keeps its own annotations, and a pod's own {@code disabled} still wins in the
 * engine.
 */
public final class AssumeEnabledNamespaces implements ClusterView {
  private final ClusterView delegate;

  public AssumeEnabledNamespaces(ClusterView delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public Optional<Namespace> namespace(String name) {
    Optional<Namespace> known = delegate.namespace(name);
    if (known.isPresent()) {
      return known;
    }
    return Optional.of(
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(name)
            .addToAnnotations(Annotations.INJECT, "enabled")
            .endMetadata()
            .build());
  }

  @Override
  public NodeIndex nodes(Instant now) {
    return delegate.nodes(now);
  }

  @Override
  public Revisions revisions() {
    return delegate.revisions();
  }
}
