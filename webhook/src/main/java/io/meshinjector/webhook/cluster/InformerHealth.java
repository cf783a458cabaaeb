package io.meshinjector.webhook.cluster;

import io.meshinjector.engine.cluster.InMemoryClusterView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of the informer-fed view, sampled from its sources every {@link #TICK}: when the
 * required sources first synced, how long since all of them last watched, and whether the view fits
 * its heap. {@link ClusterInformers} wires the sources; readiness, the age gauge and the metrics
 * read this.
 */
public final class InformerHealth implements ViewHealth {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterInformers.class);

  /** The sources, required ones first. */
  static final List<String> SOURCES =
      List.of("nodes", "namespaces", "nodecapabilities", "cni-pods");

  /** How often the watch state is sampled for {@link #age()}. */
  static final Duration TICK = Duration.ofMillis(250);

  private final InMemoryClusterView view;
  private final CompactNodeStore nodeStore;
  private final IntSupplier cniReadyNodes;
  private final HeapHeadroom headroom;
  private final Clock clock;
  private final List<InformerSource> sources = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "cluster-view-age");
            t.setDaemon(true);
            return t;
          });

  /**
   * New nodes the view left out because it did not fit the heap: it would have died of them. Once
   * any was, the view is incomplete and the replica stays not ready until it restarts.
   */
  private final AtomicLong shed = new AtomicLong();

  private volatile boolean synced;
  private volatile Instant lastInSync;

  InformerHealth(
      InMemoryClusterView view,
      CompactNodeStore nodeStore,
      IntSupplier cniReadyNodes,
      HeapHeadroom headroom,
      Clock clock) {
    this.view = Objects.requireNonNull(view, "view");
    this.nodeStore = Objects.requireNonNull(nodeStore, "nodeStore");
    this.cniReadyNodes = Objects.requireNonNull(cniReadyNodes, "cniReadyNodes");
    this.headroom = Objects.requireNonNull(headroom, "headroom");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  void add(InformerSource source) {
    sources.add(source);
  }

  /** Starts the sources and the sampling. */
  void start() {
    sources.forEach(InformerSource::start);
    ticker.scheduleWithFixedDelay(this::sample, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
  }

  void close() {
    ticker.shutdownNow();
    sources.forEach(InformerSource::close);
  }

  /**
   * Whether a new node may join the view: false once the heap is full, and from then on the view is
   * incomplete (logged once, naming the first node left out).
   */
  boolean admits(String node) {
    if (!headroom.full() || view.hasNode(node)) {
      return true;
    }
    if (shed.getAndIncrement() == 0) {
      LOG.error(
          "cluster view: leaving out new nodes from {} on, as the heap is full; not"
              + " ready until restarted with more memory",
          node);
    }
    return false;
  }

  private void sample() {
    sources.forEach(InformerSource::sample);
    boolean justSynced = false;
    if (!synced
        && sources.stream().filter(InformerSource::required).allMatch(InformerSource::hasSynced)) {
      // the lists just delivered the whole state; the watches follow within moments
      lastInSync = clock.instant();
      LOG.info(
          "cluster view in sync: {} nodes, {} cni-ready",
          nodeStore.size(),
          cniReadyNodes.getAsInt());
      justSynced = true;
      sources.stream()
          .filter(s -> !s.hasSynced())
          .forEach(
              s ->
                  LOG.warn(
                      "cluster view: ready without {} ({} for now); it joins once it can be read",
                      s.name(),
                      s.name().equals("cni-pods")
                          ? "every node's cni is unknown"
                          : "no node has a probe verdict"));
    }
    if ((synced || justSynced)
        && sources.stream().filter(InformerSource::required).allMatch(InformerSource::isWatching)) {
      lastInSync = clock.instant();
    }
    // judged once the first list is in (its own peak is no verdict, what stays after it is), and
    // before the view says it is synced, so that a view that does not fit is never Ready between
    headroom
        .sample(view.nodeCount(), synced || justSynced)
        .ifPresent(
            line -> {
              if (headroom.fits()) {
                LOG.info(line);
              } else {
                LOG.error(line);
              }
            });
    if (justSynced) {
      synced = true;
      headroom.warning(nodeStore.size()).ifPresent(LOG::warn);
    }
  }

  @Override
  public boolean synced() {
    if (!synced) {
      sample();
    }
    return synced;
  }

  @Override
  public Optional<Duration> age() {
    sample();
    Instant at = lastInSync;
    if (!synced || at == null) {
      return Optional.empty();
    }
    Duration age = Duration.between(at, clock.instant());
    return Optional.of(age.isNegative() ? Duration.ZERO : age);
  }

  @Override
  public boolean fits() {
    return headroom.fits() && shed.get() == 0;
  }

  @Override
  public double heapUsedShare() {
    return headroom.usedShare();
  }

  @Override
  public double nodeShapes() {
    return nodeStore.templates();
  }

  @Override
  public List<String> sourceNames() {
    return SOURCES;
  }

  @Override
  public boolean sourceSynced(String name) {
    return sources.stream().anyMatch(s -> s.name().equals(name) && s.hasSynced());
  }
}
