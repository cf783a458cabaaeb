package io.meshinjector.webhook.cli.snapshot;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.revisions.Revisions;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The view {@code explain -n NS} decides on: the cluster as it is, except that {@code NS} carries
 * {@code inject: enabled}, as it would once annotated. Its labels stay (Pod Security decides the
 * path), and nothing is written to the cluster. A pod's own {@code inject: disabled} still wins.
 */
public final class PreviewNamespace implements ClusterView {
  private final ClusterView delegate;
  private final String name;

  public PreviewNamespace(ClusterView delegate, String name) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.name = Objects.requireNonNull(name, "name");
  }

  @Override
  public Optional<Namespace> namespace(String namespace) {
    if (!name.equals(namespace)) {
      return delegate.namespace(namespace);
    }
    Namespace ns =
        delegate
            .namespace(namespace)
            .orElseGet(
                () ->
                    new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build());
    Map<String, String> annotations =
        ns.getMetadata().getAnnotations() == null
            ? new HashMap<>()
            : new HashMap<>(ns.getMetadata().getAnnotations());
    // the alias goes, or a disabled one would win the disagreement with the enabled key
    annotations.remove(Annotations.INJECT_PREFIXED);
    annotations.put(Annotations.INJECT, "enabled");
    return Optional.of(
        new NamespaceBuilder(ns).editMetadata().withAnnotations(annotations).endMetadata().build());
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
