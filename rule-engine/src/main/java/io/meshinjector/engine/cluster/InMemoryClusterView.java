package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.meshinjector.engine.capability.NodeCapabilityStatus;
import io.meshinjector.engine.capability.StatusReading;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.registry.CapabilityResolver;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A cluster view held in memory and kept current by its feeders (informers or files). Feeders write
 * from their threads while admissions read: writes mark the view dirty, and the next read rebuilds
 * the immutable {@link NodeIndex} once. A Node update that changes nothing the engine reads (a
 * heartbeat) does not mark it dirty, nor does a probe report that only repeats its verdicts.
 *
 * <p>A rebuild is paced once it is costly: in a view of {@link #PACED_FROM} nodes or more, after
 * one that took {@link #COSTLY} or more, changes wait until ten times its duration has passed (at
 * most {@link #MOST_LATE}), and admissions meanwhile read the index before them, as they would read
 * a view whose watch delivered the changes that much later. Why: a rebuild reads every node, and at
 * 20,000 Nodes whose taints a controller keeps changing (the node controller on kubelet-less Nodes,
 * an autoscaler, cordons) nearly every admission paid one, about 0.5 s and 13 MB each on the real
 * plane: a 1,000-pod burst ran two admissions a second and the API server's 10 s deadline refused
 * pods. An expired verdict is never served: the index rebuilds at once when it expires.
 */
public final class InMemoryClusterView implements ClusterView {
  private final CapabilityResolver resolver;
  private final Duration probeTtl;
  private final Consumer<String> warnings;
  private final boolean snapshot;
  // each node as its name and its shape, one instance per distinct shape (NodeShape)
  private final Map<String, NodeShape> nodes = new ConcurrentHashMap<>();
  private final NodeShapes shapes = new NodeShapes();
  // the label keys the operator's overrides select on: a shape whose value there is the node's
  // own name is resolved per node, any other once for all its nodes
  private final Set<String> overrideKeys;
  private final Map<String, Namespace> namespaces = new ConcurrentHashMap<>();
  private final Map<String, NodeCapabilityStatus> probes = new ConcurrentHashMap<>();
  private final Set<String> cniReady = ConcurrentHashMap.newKeySet();
  private final Set<String> futureWarned = ConcurrentHashMap.newKeySet();

  /** A rebuild that took this long or more paces the next one. */
  static final Duration COSTLY = Duration.ofMillis(2);

  /** Views of fewer nodes rebuild at every change, however long it took. */
  static final int PACED_FROM = 1000;

  /** The most a change waits for a paced rebuild. */
  static final Duration MOST_LATE = Duration.ofSeconds(1);

  private final LongSupplier ticker;
  private volatile boolean dirty = true;
  // a rebuild clears the dirty mark before it starts, so that a write meanwhile is not lost, and a
  // concurrent read takes the index before it; that must never be this one, which holds no node
  private volatile NodeIndex index = NodeIndex.notBuilt();
  // when the last rebuild ended and how long it took, by the ticker (nanoseconds)
  private volatile long rebuiltAt;
  private volatile long rebuildCost;
  // the time the index was resolved for; written and read only while holding this
  private Instant indexedAt = Instant.MIN;
  // each node's last resolution, reused by the next rebuild while its inputs are the same and it
  // has not expired; written and read only while holding this
  private Map<String, Resolution> resolutions = Map.of();
  // the resolutions of nodes without a probe report, by shape and CNI readiness, shared by every
  // such node; written and read only while holding this
  private Map<SharedKey, Resolution> shared = Map.of();

  /**
   * @param warnings told, in one sentence naming the object, about every NodeCapability whose
   *     status is partly or wholly unusable; the view counts that part as unknown and goes on
   */
  public InMemoryClusterView(CapabilitiesConfig config, Consumer<String> warnings) {
    this(config, warnings, System::nanoTime);
  }

  /**
   * As {@link #InMemoryClusterView(CapabilitiesConfig, Consumer)}, timing rebuilds by {@code
   * ticker}.
   */
  InMemoryClusterView(CapabilitiesConfig config, Consumer<String> warnings, LongSupplier ticker) {
    this(config, warnings, false, ticker);
  }

  private InMemoryClusterView(
      CapabilitiesConfig config, Consumer<String> warnings, boolean snapshot, LongSupplier ticker) {
    this.ticker = ticker;
    this.resolver = new CapabilityResolver(config, snapshot);
    this.probeTtl = config.probeTtl();
    this.warnings = warnings;
    this.snapshot = snapshot;
    Set<String> keys = new java.util.HashSet<>();
    config.overrides().forEach(o -> keys.addAll(o.nodeSelector().keySet()));
    this.overrideKeys = Set.copyOf(keys);
  }

  /**
   * A view of objects the operator supplies as a snapshot ({@code --cluster} files): corrupt
   * NodeCapabilities count as unknown as anywhere, but an {@code observedAt} ahead of the clock is
   * taken as written, so a snapshot can pin its reports (the project's examples do). The cluster's
   * live objects go through the constructor, which counts such reports as unknown.
   */
  public static InMemoryClusterView snapshot(
      CapabilitiesConfig config,
      Collection<? extends HasMetadata> objects,
      Consumer<String> warnings) {
    InMemoryClusterView v = new InMemoryClusterView(config, warnings, true, System::nanoTime);
    objects.forEach(v::upsert);
    return v;
  }

  /** Builds a view from Nodes, Namespaces and NodeCapabilities (other kinds are ignored). */
  public static InMemoryClusterView of(
      CapabilitiesConfig config, Collection<? extends HasMetadata> objects) {
    return of(config, objects, warning -> {});
  }

  /** As {@link #of(CapabilitiesConfig, Collection)}, telling {@code warnings} of bad objects. */
  public static InMemoryClusterView of(
      CapabilitiesConfig config,
      Collection<? extends HasMetadata> objects,
      Consumer<String> warnings) {
    InMemoryClusterView v = new InMemoryClusterView(config, warnings);
    objects.forEach(v::upsert);
    return v;
  }

  /**
   * Adds or replaces a Node, a Namespace or a NodeCapability. A NodeCapability is anyone's to
   * write, so its status is read without trust: the unusable parts count as unknown, with a
   * warning, and never stop the view.
   *
   * @return false when the object is of another kind and was ignored
   */
  public boolean upsert(HasMetadata object) {
    if (object instanceof Node node) {
      upsertNode(node);
    } else if (object instanceof Namespace ns) {
      upsertNamespace(ns);
    } else if (isNodeCapability(object)) {
      upsertNodeCapability((GenericKubernetesResource) object);
    } else {
      return false;
    }
    return true;
  }

  private void upsertNodeCapability(GenericKubernetesResource object) {
    String name = object.getMetadata() != null ? object.getMetadata().getName() : null;
    if (name == null || name.isBlank()) {
      warnings.accept("NodeCapability without metadata.name ignored");
      return;
    }
    Map<String, Object> properties = object.getAdditionalProperties();
    StatusReading reading = StatusReading.of(properties == null ? null : properties.get("status"));
    if (reading.status() == null) {
      removeNodeCapability(name);
    } else {
      upsertNodeCapability(name, reading.status());
    }
    if (reading.problems().isEmpty()) {
      return;
    }
    String problems = String.join("; ", reading.problems());
    warnings.accept(
        "NodeCapability '"
            + name
            + "': "
            + problems
            + (reading.status() == null
                ? "; all its verdicts count as unknown"
                : reading.problems().stream().allMatch(StatusReading::labelOnly)
                    ? "; the verdicts stand, without that label"
                    : "; those verdicts count as unknown"));
  }

  public static boolean isNodeCapability(HasMetadata object) {
    return object instanceof GenericKubernetesResource
        && NodeCapabilityStatus.KIND.equals(object.getKind())
        && object.getApiVersion() != null
        && object.getApiVersion().startsWith(NodeCapabilityStatus.GROUP + "/");
  }

  public void upsertNode(Node node) {
    NodeFacts facts = NodeFacts.of(node);
    NodeShape shape = shapes.intern(facts);
    NodeShape previous = nodes.put(facts.name(), shape);
    if (!shape.equals(previous)) {
      dirty = true;
    }
  }

  public boolean hasNode(String name) {
    return nodes.containsKey(name);
  }

  /** How many nodes the view holds. */
  public int nodeCount() {
    return nodes.size();
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
        // a report from far ahead is not a refresh: the rebuild must see it and count it unknown
        && (snapshot
            || !next.observedAt()
                .isAfter(
                    later(previous.observedAt(), probeTtl.plus(CapabilityResolver.MAX_CLOCK_SKEW))))
        // a report that had expired when the index was built is not in it
        && indexedAt.isBefore(later(previous.observedAt(), probeTtl));
  }

  /** {@code t + d}, stopping at the end of time: a forged observedAt may sit right there. */
  private static Instant later(Instant t, Duration d) {
    return t.isAfter(Instant.MAX.minus(d)) ? Instant.MAX : t.plus(d);
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

  /**
   * Each node's last probe report time ({@code status.observedAt}), as stored: the check and the
   * probe-age metrics read it, since the index keeps only the verdicts that are still valid.
   */
  public Map<String, Instant> probeReportTimes() {
    Map<String, Instant> out = new HashMap<>(probes.size() * 2);
    probes.forEach((node, status) -> out.put(node, status.observedAt()));
    return out;
  }

  /** The nodes where the mesh CNI's pod was last seen Ready (live cluster state), as a copy. */
  public Set<String> cniReadyNodes() {
    return Set.copyOf(cniReady);
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
    return nodes(now, true);
  }

  @Override
  public NodeIndex latestNodes(Instant now) {
    return nodes(now, false);
  }

  private NodeIndex nodes(Instant now, boolean pace) {
    NodeIndex current = index;
    boolean expired = !now.isBefore(current.validUntil());
    if (!expired && (!dirty || (pace && paced()))) {
      return current;
    }
    synchronized (this) {
      if (!now.isBefore(index.validUntil()) || (dirty && !(pace && paced()))) {
        dirty = false;
        long start = ticker.getAsLong();
        index = rebuild(now);
        indexedAt = now;
        long end = ticker.getAsLong();
        rebuildCost = end - start;
        rebuiltAt = end;
      }
      return index;
    }
  }

  /**
   * Whether changes wait: the index holds {@link #PACED_FROM} nodes or more, and its last rebuild
   * was costly and ended less than ten of it ago. The size keeps a small view's reads exact
   * whatever a cold start's first rebuild cost.
   */
  private boolean paced() {
    long cost = rebuildCost;
    return index.size() >= PACED_FROM
        && cost >= COSTLY.toNanos()
        && ticker.getAsLong() - rebuiltAt < Math.min(MOST_LATE.toNanos(), 10 * cost);
  }

  /**
   * A report from ahead of this clock counts as unknown in the resolver, which cannot warn; say so
   * here once per report, since rebuilds repeat.
   */
  private void warnIfFromTheFuture(String node, Instant now) {
    NodeCapabilityStatus probe = probes.get(node);
    if (snapshot
        || probe == null
        || !probe.observedAt().isAfter(now.plus(CapabilityResolver.MAX_CLOCK_SKEW))) {
      return;
    }
    if (futureWarned.add(node + "@" + probe.observedAt())) {
      warnings.accept(
          "NodeCapability '"
              + node
              + "': status.observedAt "
              + probe.observedAt()
              + " is ahead of this replica's clock ("
              + now
              + ") by more than "
              + CapabilityResolver.MAX_CLOCK_SKEW.toMinutes()
              + "m; its verdicts count as unknown");
    }
  }

  /**
   * The index of every node, its capabilities resolved anew only where their inputs changed or a
   * verdict expired. Why: at 5,000 Nodes a rebuild that resolved every node allocated tens of
   * megabytes (OS-image parsing, verdict maps, class profiles), and in a cluster whose Nodes change
   * (autoscaling, a controller tainting nodes) nearly every admission paid one: during a burst of
   * 1,000 pods on the real plane that was 70 % of the process's allocation and about 50 full
   * collections of a 96 MiB heap.
   */
  private NodeIndex rebuild(Instant now) {
    // sorted by name so classes and listings come out the same whatever order the feed had
    Map<String, NodeShape> sorted = new TreeMap<>(nodes);
    List<NodeIndex.Entry> entries = new ArrayList<>(sorted.size());
    Map<String, Resolution> resolved = new HashMap<>();
    Map<SharedKey, Resolution> sharedNow = new HashMap<>();
    Instant validUntil = Instant.MAX;
    for (Map.Entry<String, NodeShape> n : sorted.entrySet()) {
      String name = n.getKey();
      NodeShape shape = n.getValue();
      warnIfFromTheFuture(name, now);
      NodeCapabilityStatus probe = probes.get(name);
      boolean cni = cniReady.contains(name);
      Resolution r;
      if (probe == null && !shape.namesAny(overrideKeys)) {
        // what such a node's verdicts are read from is all in its shape (taints aside): resolved
        // once for all the nodes that have the same labels, OS image, kubelet and CNI readiness
        CapabilityResolver.NodeDescription node = shape.sharedDescription();
        SharedKey key = new SharedKey(node, cni);
        r = sharedNow.get(key);
        if (r == null) {
          r = shared.get(key);
          if (r == null || !r.reusable(node, null, cni, now)) {
            r = resolve(node, null, cni, now);
          }
          sharedNow.put(key, r);
        }
      } else {
        CapabilityResolver.NodeDescription node = shape.description(name);
        r = resolutions.get(name);
        if (r == null || !r.reusable(node, probe, cni, now)) {
          r = resolve(node, probe, cni, now);
        }
        resolved.put(name, r);
      }
      entries.add(new NodeIndex.Entry(name, shape, r.resolved().capabilities(), r.profile()));
      if (r.resolved().expiresAt().isBefore(validUntil)) {
        validUntil = r.resolved().expiresAt();
      }
    }
    resolutions = resolved;
    shared = sharedNow;
    shapes.retain(sorted.values());
    return NodeIndex.build(entries, validUntil);
  }

  private Resolution resolve(
      CapabilityResolver.NodeDescription node,
      NodeCapabilityStatus probe,
      boolean cni,
      Instant now) {
    CapabilityResolver.Resolved fresh = resolver.resolve(node, probe, cni, now);
    return new Resolution(node, probe, cni, fresh, fresh.capabilities().profile());
  }

  private record SharedKey(CapabilityResolver.NodeDescription node, boolean cniReady) {}

  /** A node's resolution and what it was resolved from. */
  private record Resolution(
      CapabilityResolver.NodeDescription node,
      NodeCapabilityStatus probe,
      boolean cniReady,
      CapabilityResolver.Resolved resolved,
      String profile) {
    /** The same inputs (the same report, not an equal one) and not yet expired. */
    boolean reusable(
        CapabilityResolver.NodeDescription node,
        NodeCapabilityStatus probe,
        boolean cniReady,
        Instant now) {
      return this.probe == probe
          && this.cniReady == cniReady
          && now.isBefore(resolved.expiresAt())
          && this.node.equals(node);
    }
  }
}
