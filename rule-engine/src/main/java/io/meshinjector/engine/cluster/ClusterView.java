package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshinjector.engine.revisions.Revisions;
import java.time.Instant;
import java.util.Optional;

/**
 * What the engine knows of the cluster. {@code serve} feeds an implementation from informers, the
 * CLI from {@code --cluster} files; the engine cannot tell them apart.
 */
public interface ClusterView {

  Optional<Namespace> namespace(String name);

  /**
   * The nodes, grouped into capability classes and indexed for candidate selection, with every
   * verdict resolved as of {@code now} (probe verdicts expire). Cheap to call: an implementation
   * rebuilds only when something changed or a verdict expired.
   */
  NodeIndex nodes(Instant now);

  /**
   * As {@link #nodes}, with every change the view has been told of however costly its rebuild: for
   * a reader that acts once per change (the label publisher), where {@link #nodes} may serve an
   * index a paced rebuild has not caught up with yet (see {@link InMemoryClusterView}).
   */
  default NodeIndex latestNodes(Instant now) {
    return nodes(now);
  }

  /**
   * The cluster's revisions and tags, for routing a pod that reached the webhook through no route
   * of its own; {@link Revisions#unknown()} where they were not read (a manifest checked without a
   * cluster).
   */
  default Revisions revisions() {
    return Revisions.unknown();
  }
}
