package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps labels on cluster objects while this replica leads, for each of its {@link LabelSubject}s
 * (the nodes' capability labels, the namespaces' injection label).
 *
 * <p>Only what differs is written, as a JSON merge patch of {@code metadata.labels} (other labels
 * are never touched), at most the subject's patches a second. An object that changed is written
 * ahead of the periodic comparison of all, so a node whose CNI becomes ready carries {@code
 * cni=ready} within moments. Losing the lease stops the writing before the next patch.
 *
 * <p>Each subject has its own thread, so a slow, paced pass over thousands of nodes never holds
 * back a namespace's label.
 *
 * <p>The echo wait and the pacing read a {@link Ticker}: the webhook passes {@link Ticker#SYSTEM};
 * a test passes a fake that moves only when told, so it checks both without waiting.
 */
public final class LabelWriter implements AutoCloseable {

  /** A patch the informer has not echoed back yet is not sent again before this. */
  static final Duration ECHO_WAIT = Duration.ofSeconds(10);

  /** The time the echo wait and the pacing measure, and the pacing's wait for its next slot. */
  public interface Ticker {
    /** A monotonic reading in nanoseconds, as {@link System#nanoTime()}. */
    long nanoTime();

    /** Waits until the pacing's next slot, {@code nanos} from now. */
    void sleep(long nanos) throws InterruptedException;

    /** The JVM's monotonic clock, and a thread sleep. */
    Ticker SYSTEM =
        new Ticker() {
          @Override
          public long nanoTime() {
            return System.nanoTime();
          }

          @Override
          public void sleep(long nanos) throws InterruptedException {
            TimeUnit.NANOSECONDS.sleep(nanos);
          }
        };
  }

  private final List<Lane> lanes;
  private final Ticker ticker;
  private volatile boolean leading;

  public LabelWriter(
      KubernetesClient client, List<LabelSubject> subjects, Duration resyncPeriod, Ticker ticker) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(resyncPeriod, "resyncPeriod");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.lanes = subjects.stream().map(s -> new Lane(s, client, resyncPeriod)).toList();
  }

  /** The leader election's start callback. */
  public synchronized void startLeading() {
    if (lanes.stream().anyMatch(Lane::closed)) {
      return;
    }
    leading = true;
    lanes.forEach(Lane::start);
  }

  /** The leader election's stop callback: from now on nothing is written. */
  public synchronized void stopLeading() {
    leading = false;
    lanes.forEach(Lane::stop);
  }

  @Override
  public synchronized void close() {
    stopLeading();
    lanes.forEach(Lane::close);
  }

  /** One subject's writing: its thread, its record of what was written, its pace. */
  private final class Lane {
    private final LabelSubject subject;
    private final KubernetesClient client;
    private final Duration resyncPeriod;
    private final Logger log;
    private final long nanosPerPatch;
    private final ScheduledExecutorService executor;

    /** Objects that changed since the last pass: written first. */
    private final Set<String> changed = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean passQueued = new AtomicBoolean();

    /** What was last written to an object and when, until the informer shows it. */
    private final Map<String, Written> written = new ConcurrentHashMap<>();

    private ScheduledFuture<?> resync;
    private long nextSlot;
    private String lastProblem;

    private record Written(Map<String, String> patch, long atNanos) {}

    Lane(LabelSubject subject, KubernetesClient client, Duration resyncPeriod) {
      this.subject = subject;
      this.client = client;
      this.resyncPeriod = resyncPeriod;
      // the subject's own logger, so its lines keep their name
      this.log = LoggerFactory.getLogger(subject.getClass());
      int rate = subject.patchesPerSecond();
      this.nanosPerPatch = rate > 0 ? TimeUnit.SECONDS.toNanos(1) / rate : 0;
      this.nextSlot = ticker.nanoTime();
      this.executor = daemonThread(subject.thread());
      subject.onChange(this::changed);
    }

    boolean closed() {
      return executor.isShutdown();
    }

    void start() {
      written.clear();
      log.info("labels: {}", subject.starting());
      resync =
          executor.scheduleWithFixedDelay(
              this::pass, 0, resyncPeriod.toMillis(), TimeUnit.MILLISECONDS);
    }

    void stop() {
      if (resync != null) {
        resync.cancel(false);
      }
    }

    void close() {
      executor.shutdownNow();
    }

    private void changed(String name) {
      if (!leading) {
        return;
      }
      changed.add(name);
      queuePass();
    }

    private void queuePass() {
      if (passQueued.compareAndSet(false, true)) {
        try {
          executor.execute(this::pass);
        } catch (RejectedExecutionException e) {
          // closed
        }
      }
    }

    /** One comparison: the changed objects first, then all. */
    private void pass() {
      passQueued.set(false);
      if (!leading) {
        return;
      }
      try {
        Set<String> first = new LinkedHashSet<>(changed);
        changed.removeAll(first);
        // read once a pass, after taking the changes, so that each change reaches the labels
        Function<String, Optional<LabelSubject.Labels>> reader = subject.reader();
        for (String name : first) {
          if (!write(reader, name)) {
            return;
          }
        }
        for (String name : subject.names()) {
          if (!changed.isEmpty()) {
            // an object changed meanwhile: it goes first, then this comparison starts over
            queuePass();
            return;
          }
          if (!write(reader, name)) {
            return;
          }
        }
      } catch (RuntimeException e) {
        log.warn("labels: a pass failed, retrying on the next change or resync: {}", e.toString());
      }
    }

    /**
     * @return false when this replica no longer leads, and the pass must end
     */
    private boolean write(Function<String, Optional<LabelSubject.Labels>> reader, String name) {
      Map<String, String> patch = reader.apply(name).map(Lane::difference).orElse(Map.of());
      if (patch.isEmpty()) {
        written.remove(name);
        return leading;
      }
      Written last = written.get(name);
      if (last != null
          && last.patch().equals(patch)
          && ticker.nanoTime() - last.atNanos() < ECHO_WAIT.toNanos()) {
        return leading; // sent; the watch has not shown it yet
      }
      if (!awaitSlot()) {
        return false;
      }
      try {
        subject.object(name).patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch(patch));
        written.put(name, new Written(patch, ticker.nanoTime()));
        lastProblem = null;
        subject.patched(name, patch);
      } catch (KubernetesClientException e) {
        // an object deleted meanwhile is no failure worth a line; a failure that repeats (RBAC,
        // an admission policy) is logged once, not once an object: the API server's message
        // names the object ("nodes \"rhel-1\" is forbidden"), so the name is not part of what
        // makes two failures the same
        String problem = subject.problem(e).replace(name, "<object>");
        boolean warn = e.getCode() != 404 && !problem.equals(lastProblem);
        if (warn) {
          lastProblem = problem;
        }
        subject.failed(name, e, warn);
      }
      return leading;
    }

    /** The labels to set and, as null, the ones to remove. */
    private static Map<String, String> difference(LabelSubject.Labels labels) {
      Map<String, String> patch = new LinkedHashMap<>();
      labels
          .wanted()
          .forEach(
              (k, v) -> {
                if (!v.equals(labels.present().get(k))) {
                  patch.put(k, v);
                }
              });
      labels.present().keySet().stream()
          .filter(k -> !labels.wanted().containsKey(k))
          .forEach(k -> patch.put(k, null));
      return patch;
    }

    private String mergePatch(Map<String, String> labels) {
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("labels", labels);
      return client.getKubernetesSerialization().asJson(Map.of("metadata", metadata));
    }

    /** Waits for the rate limit's next slot; false when the lease was lost meanwhile. */
    private boolean awaitSlot() {
      if (nanosPerPatch == 0) {
        return leading;
      }
      long now = ticker.nanoTime();
      long slot = Math.max(now, nextSlot);
      nextSlot = slot + nanosPerPatch;
      long wait = slot - now;
      if (wait > 0) {
        try {
          ticker.sleep(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return leading;
    }
  }

  /** A daemon, so a writer never holds the JVM open. */
  private static ScheduledExecutorService daemonThread(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
