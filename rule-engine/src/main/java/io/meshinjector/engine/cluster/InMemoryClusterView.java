package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.registry.CapabilityResolver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cluster view held in memory and kept current by its feeders (informers or files). Feeders write
 * from their threads while admissions read: writes mark the view dirty, and the next read rebuilds
 * the immutable {@link NodeIndex} once. A Node update that changes nothing the engine reads (a
 * heartbeat) does not mark it dirty, nor does a probe report that only repeats its verdicts.
 */
public final class InMemoryClusterView implements ClusterView {
  private final CapabilityResolver resolver;
  private final Duration probeTtl;
  private final Map<String, NodeFacts> nodes = new ConcurrentHashMap<>();
  private final Map<String, Namespace> namespaces = new ConcurrentHashMap<>();
  private final Map<String, NodeCapabilityStatus> probes = new ConcurrentHashMap<>();
  private final Set<String> cniReady = ConcurrentHashMap.newKeySet();
  private volatile boolean dirty = true;
  private volatile NodeIndex index = NodeIndex.empty();
  // the time the index was resolved for; written and read only while holding this
  private Instant indexedAt = Instant.MIN;

  public InMemoryClusterView(CapabilitiesConfig config) {
    this.resolver = new CapabilityResolver(config);
    this.probeTtl = config.probeTtl();
  }

  /** Builds a view from Nodes, Namespaces and NodeCapabilities (other kinds are ignored). */
  public static InMemoryClusterView of(
      CapabilitiesConfig config, Collection<? extends HasMetadata> objects) {
    InMemoryClusterView v = new InMemoryClusterView(config);
    objects.forEach(v::upsert);
    return v;
  }

  /**
   * Adds or replaces a Node, a Namespace or a NodeCapability.
   *
   * @return false when the object is of another kind and was ignored
   * @throws IllegalArgumentException when a NodeCapability's status is malformed, naming the object
   */
  public boolean upsert(HasMetadata object) {
    if (object instanceof Node node) {
      upsertNode(node);
    } else if (object instanceof Namespace ns) {
      upsertNamespace(ns);
    } else if (isNodeCapability(object)) {
      String name = object.getMetadata().getName();
      Object status = ((GenericKubernetesResource) object).getAdditionalProperties().get("status");
      if (status == null) {
        return true; // created but not yet reported: nothing to learn
      }
      try {
        upsertNodeCapability(name, NodeCapabilityStatus.fromMap((Map<?, ?>) status));
      } catch (ClassCastException | IllegalArgumentException e) {
        throw new IllegalArgumentException("NodeCapability '" + name + "': " + e.getMessage(), e);
      }
    } else {
      return false;
    }
    return true;
  }

  public static boolean isNodeCapability(HasMetadata object) {
    return object instanceof GenericKubernetesResource
        && NodeCapabilityStatus.KIND.equals(object.getKind())
        && object.getApiVersion() != null
        && object.getApiVersion().startsWith(NodeCapabilityStatus.GROUP + "/");
  }

  public void upsertNode(Node node) {
    NodeFacts facts = NodeFacts.of(node);
    NodeFacts previous = nodes.put(facts.name(), facts);
    if (!facts.equals(previous)) {
      dirty = true;
    }
  }

  public void removeNode(String name) {
    if (nodes.remove(name) != null) {
      dirty = true;
    }
  }

  public void upsertNamespace(Namespace ns) {
    namespaces.put(ns.getMetadata().getName(), ns);
  }

  public void removeNamespace(String name) {
    namespaces.remove(name);
  }

  /**
   * Probes report every few minutes with a new {@code observedAt}; a report that only repeats the
   * verdicts the index already uses does not mark the view dirty, or thousands of nodes would have
   * most admissions pay a rebuild. The index expires no later than the report it replaces, and its
   * rebuild then reads the new one. Synchronized with the rebuild, so that the index this compares
   * against is the one being served.
   */
  public synchronized void upsertNodeCapability(String nodeName, NodeCapabilityStatus status) {
    NodeCapabilityStatus previous = probes.put(nodeName, status);
    if (!status.equals(previous) && !refreshesIndexedReport(previous, status)) {
      dirty = true;
    }
  }

  private boolean refreshesIndexedReport(NodeCapabilityStatus previous, NodeCapabilityStatus next) {
    return previous != null
        && previous.capabilities().equals(next.capabilities())
        // a verdict's detail quotes its reason: a new cause must reach refusals and explain
        && reasons(previous).equals(reasons(next))
        // an older report would expire before the index does
        && !next.observedAt().isBefore(previous.observedAt())
        // a report that had expired when the index was built is not in it
        && indexedAt.isBefore(previous.observedAt().plus(probeTtl));
  }

  private static Map<String, String> reasons(NodeCapabilityStatus status) {
    Map<String, String> reasons = new TreeMap<>();
    status
        .facts()
        .forEach(
            (k, v) -> {
              if (k.startsWith("reason.")) {
                reasons.put(k, v);
              }
            });
    return reasons;
  }

  public void removeNodeCapability(String nodeName) {
    if (probes.remove(nodeName) != null) {
      dirty = true;
    }
  }

  /** Live state: whether the mesh CNI DaemonSet's pod is Ready on the node. */
  public void setCniReady(String nodeName, boolean ready) {
    boolean changed = ready ? cniReady.add(nodeName) : cniReady.remove(nodeName);
    if (changed) {
      dirty = true;
    }
  }

  @Override
  public Optional<Namespace> namespace(String name) {
    return Optional.ofNullable(namespaces.get(name));
  }

  @Override
  public NodeIndex nodes(Instant now) {
    NodeIndex current = index;
    if (!dirty && now.isBefore(current.validUntil())) {
      return current;
    }
    synchronized (this) {
      if (dirty || !now.isBefore(index.validUntil())) {
        dirty = false;
        index = rebuild(now);
        indexedAt = now;
      }
      return index;
    }
  }

  private NodeIndex rebuild(Instant now) {
    // sorted by name so classes and listings come out the same whatever order the feed had
    Map<String, NodeFacts> sorted = new TreeMap<>(nodes);
    List<NodeIndex.Entry> entries = new ArrayList<>(sorted.size());
    Instant validUntil = Instant.MAX;
    for (NodeFacts f : sorted.values()) {
      CapabilityResolver.Resolved r =
          resolver.resolve(
              new CapabilityResolver.NodeDescription(f.labels(), f.osImage(), f.kubeletVersion()),
              probes.get(f.name()),
              cniReady.contains(f.name()),
              now);
      entries.add(new NodeIndex.Entry(f, r.capabilities()));
      if (r.expiresAt().isBefore(validUntil)) {
        validUntil = r.expiresAt();
      }
    }
    return NodeIndex.build(entries, validUntil);
  }
}
