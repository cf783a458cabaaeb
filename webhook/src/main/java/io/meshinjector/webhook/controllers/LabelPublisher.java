package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.webhook.cluster.ClusterInformers;
import io.meshinjector.webhook.cluster.Trimmed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each node's effective verdicts as {@code capability.mesh-injector.io/<key>=<verdict>}
 * labels, while this replica leads: the labels a {@code constrain} affinity term selects on.
 *
 * <p>Only what differs is written, as a JSON merge patch of {@code metadata.labels} (other labels
 * are never touched), at most {@code patchesPerSecond}. A change on a node (its CNI pod turning
 * Ready, a probe report) is published ahead of the periodic comparison of every node, so a node
 * whose CNI becomes ready carries {@code cni=ready} within moments. Losing the lease stops the
 * writing before the next patch.
 */
public final class LabelPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LabelPublisher.class);

  /** A patch the informer has not echoed back yet is not sent again before this. */
  static final Duration ECHO_WAIT = Duration.ofSeconds(10);

  private final KubernetesClient client;
  private final ClusterView view;
  private final ClusterInformers informers;
  private final Clock clock;
  private final long nanosPerPatch;
  private final Duration resyncPeriod;
  private final Counter patches;
  private final Counter failures;
  private final ScheduledExecutorService executor;

  /** Nodes that changed since the last pass: published first. */
  private final Set<String> changed = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean passQueued = new AtomicBoolean();

  /** What was last written to a node and when, until the informer shows it. */
  private final Map<String, Written> written = new ConcurrentHashMap<>();

  private volatile boolean leading;
  private ScheduledFuture<?> resync;
  private long nextSlot = System.nanoTime();
  private String lastProblem;

  private record Written(Map<String, String> patch, long atNanos) {}

  public LabelPublisher(
      KubernetesClient client,
      ClusterView view,
      ClusterInformers informers,
      int patchesPerSecond,
      Duration resyncPeriod,
      Clock clock,
      MeterRegistry registry) {
    this.client = Objects.requireNonNull(client, "client");
    this.view = Objects.requireNonNull(view, "view");
    this.informers = Objects.requireNonNull(informers, "informers");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.nanosPerPatch = TimeUnit.SECONDS.toNanos(1) / patchesPerSecond;
    this.resyncPeriod = Objects.requireNonNull(resyncPeriod, "resyncPeriod");
    this.patches =
        Counter.builder("mesh_injector_label_patches")
            .description("Node label patches the capability label publisher sent")
            .tag("result", "ok")
            .register(registry);
    this.failures =
        Counter.builder("mesh_injector_label_patches")
            .description("Node label patches the capability label publisher sent")
            .tag("result", "failed")
            .register(registry);
    this.executor = Writers.thread("label-publisher");
    informers.onNodeChanged(this::nodeChanged);
  }

  /** The leader election's start callback. */
  public synchronized void startLeading() {
    if (executor.isShutdown()) {
      return;
    }
    leading = true;
    written.clear();
    LOG.info("labels: publishing capability labels, at most {} patches/s", rate());
    resync =
        executor.scheduleWithFixedDelay(
            this::pass, 0, resyncPeriod.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The leader election's stop callback: from now on nothing is written. */
  public synchronized void stopLeading() {
    leading = false;
    if (resync != null) {
      resync.cancel(false);
    }
  }

  public boolean leading() {
    return leading;
  }

  /** Patches sent successfully, for tests and the log. */
  public long patchesSent() {
    return (long) patches.count();
  }

  private long rate() {
    return TimeUnit.SECONDS.toNanos(1) / nanosPerPatch;
  }

  private void nodeChanged(String node) {
    if (!leading) {
      return;
    }
    changed.add(node);
    queuePass();
  }

  private void queuePass() {
    if (passQueued.compareAndSet(false, true)) {
      try {
        executor.execute(this::pass);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closed
      }
    }
  }

  /** One comparison: the changed nodes first, then all on a resync. */
  private void pass() {
    passQueued.set(false);
    if (!leading) {
      return;
    }
    try {
      Set<String> first = new LinkedHashSet<>(changed);
      changed.removeAll(first);
      // every change: a pass runs once per batch of changes, and each must reach the labels
      NodeIndex index = view.latestNodes(clock.instant());
      for (String name : first) {
        if (!publish(index, name)) {
          return;
        }
      }
      for (String node : informers.nodeNames()) {
        if (!changed.isEmpty()) {
          // a node changed meanwhile: it goes first, then this comparison starts over
          queuePass();
          return;
        }
        if (!publish(index, node)) {
          return;
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("labels: a pass failed, retrying on the next change or resync: {}", e.toString());
    }
  }

  /**
   * @return false when this replica no longer leads, and the pass must end
   */
  private boolean publish(NodeIndex index, String name) {
    Node node = informers.node(name).orElse(null);
    NodeCapabilities caps = index.capabilities(name).orElse(null);
    if (node == null || caps == null) {
      written.remove(name);
      return leading;
    }
    Map<String, String> desired = caps.labels();
    Map<String, String> present = Trimmed.publishedLabels(node);
    Map<String, String> patch = new LinkedHashMap<>();
    desired.forEach(
        (k, v) -> {
          if (!v.equals(present.get(k))) {
            patch.put(k, v);
          }
        });
    present.keySet().stream().filter(k -> !desired.containsKey(k)).forEach(k -> patch.put(k, null));
    if (patch.isEmpty()) {
      written.remove(name);
      return leading;
    }
    Written last = written.get(name);
    if (last != null
        && last.patch().equals(patch)
        && System.nanoTime() - last.atNanos() < ECHO_WAIT.toNanos()) {
      return leading; // sent; the watch has not shown it yet
    }
    if (!awaitSlot()) {
      return false;
    }
    try {
      client.nodes().withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch(patch));
      written.put(name, new Written(patch, System.nanoTime()));
      patches.increment();
      lastProblem = null;
      LOG.debug("labels: node {} {}", name, patch);
    } catch (KubernetesClientException e) {
      failures.increment();
      // a node deleted meanwhile is no failure; a failure that repeats (RBAC, an admission
      // policy) is logged once, not once a node
      String problem = e.getCode() + " " + e.getStatus();
      if (e.getCode() != 404 && !problem.equals(lastProblem)) {
        lastProblem = problem;
        LOG.warn(
            "labels: patching node {} failed ({}); further failures like it are counted in"
                + " mesh_injector_label_patches_total{result=\"failed\"}: {}",
            name,
            e.getCode(),
            e.getMessage());
      }
    }
    return leading;
  }

  private String mergePatch(Map<String, String> labels) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("labels", labels);
    return client.getKubernetesSerialization().asJson(Map.of("metadata", metadata));
  }

  /** Waits for the rate limit's next slot; false when the lease was lost meanwhile. */
  private boolean awaitSlot() {
    long now = System.nanoTime();
    long slot = Math.max(now, nextSlot);
    nextSlot = slot + nanosPerPatch;
    long wait = slot - now;
    if (wait > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return leading;
  }

  @Override
  public void close() {
    stopLeading();
    executor.shutdownNow();
  }
}
