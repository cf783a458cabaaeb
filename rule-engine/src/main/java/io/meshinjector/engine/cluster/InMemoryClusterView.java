package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.config.CapabilitiesConfig;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;

/**
 * A cluster view held in memory and kept current by its feeders (informers or files). Thread-safe:
 * feeders write from their threads while admissions read.
 */
public final class InMemoryClusterView implements ClusterView {
  public InMemoryClusterView(CapabilitiesConfig config) {}

  /** Builds a view from Nodes, Namespaces and NodeCapabilities (others are ignored). */
  public static InMemoryClusterView of(
      CapabilitiesConfig config, Collection<? extends HasMetadata> objects) {
    InMemoryClusterView v = new InMemoryClusterView(config);
    objects.forEach(v::upsert);
    return v;
  }

  /** Adds or replaces a Node, Namespace or NodeCapability (GenericKubernetesResource). */
  public void upsert(HasMetadata object) {}

  public void upsertNode(Node node) {}

  public void removeNode(String name) {}

  public void upsertNamespace(Namespace ns) {}

  public void removeNamespace(String name) {}

  public void upsertNodeCapability(String nodeName, NodeCapabilityStatus status) {}

  public void removeNodeCapability(String nodeName) {}

  /** Live state: whether the mesh CNI DaemonSet's pod is Ready on the node. */
  public void setCniReady(String nodeName, boolean ready) {}

  @Override
  public Optional<Namespace> namespace(String name) {
    return Optional.empty();
  }

  @Override
  public NodeIndex nodes(Instant now) {
    return new NodeIndex();
  }
}
