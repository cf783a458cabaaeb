package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One informer of the cluster view and what its failures mean. A failure is one log line per retry
 * (fabric8 backs the retries off), naming the status and what the view does without the source,
 * never a stack trace: a source that is refused for hours would otherwise fill the log.
 */
final class InformerSource {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterInformers.class);

  private final String name;
  private final boolean required;
  private final SharedIndexInformer<?> informer;
  private final String description;
  private final AtomicInteger failures = new AtomicInteger();
  private volatile boolean announced;

  InformerSource(
      String name, boolean required, SharedIndexInformer<?> informer, String description) {
    this.name = Objects.requireNonNull(name, "name");
    this.required = required;
    this.informer = Objects.requireNonNull(informer, "informer");
    this.description = Objects.requireNonNull(description, "description");
  }

  String name() {
    return name;
  }

  boolean required() {
    return required;
  }

  boolean hasSynced() {
    return informer.hasSynced();
  }

  boolean isWatching() {
    return informer.isWatching();
  }

  void start() {
    informer.start();
  }

  void close() {
    informer.close();
  }

  /** Called on every sampling tick: says once that a source that had failed has joined. */
  void sample() {
    if (!announced && informer.hasSynced()) {
      announced = true;
      int failed = failures.get();
      if (failed > 0) {
        LOG.info("cluster view: {} joined after {} failed attempts", description, failed);
      }
    }
  }

  void failed(Throwable t) {
    int n = failures.incrementAndGet();
    String effect =
        required
            ? "the view is not ready until it can"
            : "the verdicts it feeds stay unknown until it can";
    if (informer.hasSynced()) {
      effect = "the view keeps its last state";
    }
    LOG.warn(
        "cluster view: cannot read {} (attempt {}): {}; {}; retrying",
        description,
        n,
        reason(t),
        effect);
  }

  /** The failure in a line: the API server's status and what usually causes it. */
  static String reason(Throwable t) {
    KubernetesClientException k = find(t, KubernetesClientException.class);
    if (k != null && k.getCode() > 0) {
      String hint =
          switch (k.getCode()) {
            case 401 -> " (the credentials were not accepted)";
            case 403 -> " (the ServiceAccount is not allowed to list and watch it)";
            case 404 ->
                " (the API server does not serve it: is its CRD installed and established?)";
            default -> "";
          };
      String message = k.getStatus() == null ? null : k.getStatus().getMessage();
      return "HTTP " + k.getCode() + hint + (message == null ? "" : ": " + message);
    }
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName()
        + (root.getMessage() == null ? "" : ": " + root.getMessage());
  }

  private static <E extends Throwable> E find(Throwable t, Class<E> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }
}
