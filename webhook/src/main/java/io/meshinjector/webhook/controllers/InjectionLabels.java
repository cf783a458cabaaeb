package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.meshinjector.engine.rules.InjectAnnotation;
import io.meshinjector.webhook.cluster.ClusterInformers;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mirrors each namespace's {@code inject} annotation into the label {@value #KEY}{@code =enabled},
 * while this replica leads. The chart's webhook configuration has two entries: one with {@code
 * failurePolicy: Fail} selecting the labelled namespaces, and one with {@code Ignore} for all the
 * others. A namespace that opted in therefore fails closed when no replica answers, and one that
 * did not is never held back by a dead injector. Webhook selectors can read labels only, which is
 * why the annotation, the user's switch, is copied.
 *
 * <p>A namespace annotated a moment ago and not yet labelled reaches the {@code Ignore} entry, and
 * is injected as long as a replica answers. Excluded namespaces are never labelled.
 */
public final class InjectionLabels implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InjectionLabels.class);

  /** The label the chart's fail-closed webhook entry selects on. */
  public static final String KEY = "mesh-injector.io/injection";

  public static final String ENABLED = "enabled";

  private final KubernetesClient client;
  private final ClusterInformers informers;
  private final Set<String> excluded;
  private final Duration resyncPeriod;
  private final ScheduledExecutorService executor;

  /** A write the informer has not echoed back yet is not sent again before this. */
  static final Duration ECHO_WAIT = Duration.ofSeconds(10);

  /** Namespace to (wanted, when written), until the informer shows the label. */
  private final Map<String, Written> written = new java.util.concurrent.ConcurrentHashMap<>();

  private record Written(boolean want, long atNanos) {}

  private volatile boolean leading;
  private ScheduledFuture<?> resync;
  private String lastProblem;

  public InjectionLabels(
      KubernetesClient client,
      ClusterInformers informers,
      Set<String> excludedNamespaces,
      Duration resyncPeriod) {
    this.client = Objects.requireNonNull(client, "client");
    this.informers = Objects.requireNonNull(informers, "informers");
    this.excluded = Set.copyOf(excludedNamespaces);
    this.resyncPeriod = Objects.requireNonNull(resyncPeriod, "resyncPeriod");
    this.executor = Writers.thread("injection-labels");
    informers.onNamespaceChanged(this::namespaceChanged);
  }

  /** Whether a namespace with these labels and annotations should carry {@value #KEY}. */
  static boolean wanted(String name, Map<String, String> annotations, Set<String> excluded) {
    return !excluded.contains(name) && InjectAnnotation.enabledBy(annotations);
  }

  public synchronized void startLeading() {
    if (executor.isShutdown()) {
      return;
    }
    leading = true;
    LOG.info("labels: mirroring the namespaces' inject annotation into the label {}", KEY);
    resync =
        executor.scheduleWithFixedDelay(
            this::pass, 0, resyncPeriod.toMillis(), TimeUnit.MILLISECONDS);
  }

  public synchronized void stopLeading() {
    leading = false;
    if (resync != null) {
      resync.cancel(false);
    }
  }

  private void namespaceChanged(String name) {
    if (!leading) {
      return;
    }
    try {
      executor.execute(() -> informers.namespace(name).ifPresent(this::mirror));
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void pass() {
    try {
      informers.namespaces().forEach(this::mirror);
    } catch (RuntimeException e) {
      LOG.warn("labels: a namespace pass failed, retrying on the next change: {}", e.toString());
    }
  }

  private void mirror(Namespace ns) {
    if (!leading) {
      return;
    }
    String name = ns.getMetadata().getName();
    Map<String, String> labels =
        ns.getMetadata().getLabels() == null ? Map.of() : ns.getMetadata().getLabels();
    boolean want = wanted(name, ns.getMetadata().getAnnotations(), excluded);
    boolean has = ENABLED.equals(labels.get(KEY));
    if (want == has && (want || !labels.containsKey(KEY))) {
      written.remove(name);
      return;
    }
    Written last = written.get(name);
    if (last != null
        && last.want() == want
        && System.nanoTime() - last.atNanos() < ECHO_WAIT.toNanos()) {
      return; // sent; the watch has not shown it yet
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put(KEY, want ? ENABLED : null);
    try {
      client
          .namespaces()
          .withName(name)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              client
                  .getKubernetesSerialization()
                  .asJson(
                      Map.of("metadata", Map.of("labels", Collections.unmodifiableMap(patch)))));
      written.put(name, new Written(want, System.nanoTime()));
      lastProblem = null;
      LOG.info("labels: namespace {} {} {}", name, want ? "labelled" : "unlabelled", KEY);
    } catch (KubernetesClientException e) {
      String problem = e.getCode() + " " + e.getMessage();
      if (e.getCode() != 404 && !problem.equals(lastProblem)) {
        lastProblem = problem;
        LOG.warn(
            "labels: labelling namespace {} failed ({}): {}", name, e.getCode(), e.getMessage());
      }
    }
  }

  @Override
  public synchronized void close() {
    leading = false;
    executor.shutdownNow();
  }
}
