package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Pods created without pause by a few threads, at a bounded rate, as a burst of a Deployment's
 * scale-up would: at least {@code minimum}, and on until {@link #finish} (so a rollout or a renewal
 * the burst is meant to cover falls wholly inside it), never more than {@code maximum} nor longer
 * than {@code limit}. Every creation's outcome is kept: a refused or failed one with the API
 * server's message. Each pod carries the label {@code burst=<name>}.
 */
public final class PodBurst implements AutoCloseable {
  private final KubernetesClient admin;
  private final String namespace;
  private final String name;
  private final PodSpec spec;
  private final int minimum;
  private final int maximum;
  private final double perSecond;
  private final Duration limit;
  private final Predicate<Pod> check;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger created = new AtomicInteger();
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private final AtomicBoolean finishing = new AtomicBoolean();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private long startedAt;

  /**
   * @param check what each created pod must satisfy (e.g. injected); one that does not counts as a
   *     failure
   */
  public PodBurst(
      KubernetesClient admin,
      String namespace,
      String name,
      PodSpec spec,
      int minimum,
      int maximum,
      double perSecond,
      Duration limit,
      Predicate<Pod> check) {
    this.admin = admin;
    this.namespace = namespace;
    this.name = name;
    this.spec = spec;
    this.minimum = minimum;
    this.maximum = maximum;
    this.perSecond = perSecond;
    this.limit = limit;
    this.check = check;
  }

  public PodBurst start(int threadCount) {
    startedAt = System.nanoTime();
    for (int t = 0; t < threadCount; t++) {
      Thread thread = new Thread(this::createPods, "burst-" + name + "-" + t);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    return this;
  }

  private void createPods() {
    long deadline = startedAt + limit.toNanos();
    while (System.nanoTime() < deadline) {
      int i = next.getAndIncrement();
      if (i >= maximum || (i >= minimum && finishing.get())) {
        return;
      }
      // paced: pod i is not created before i / perSecond seconds into the burst
      long due = startedAt + (long) (i / perSecond * 1e9);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        try {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      String pod = name + "-" + i;
      try {
        Pod p = Workloads.pod(pod, java.util.Map.of(), spec);
        p.getMetadata().getLabels().put("burst", name);
        Pod answer = admin.pods().inNamespace(namespace).resource(p).create();
        if (check.test(answer)) {
          created.incrementAndGet();
        } else {
          failures.add(pod + ": created but not as expected");
        }
      } catch (RuntimeException e) {
        failures.add(pod + " at " + java.time.Instant.now() + ": " + e.getMessage());
      }
    }
  }

  /** Pods created so far (whether or not they passed the check). */
  public int attempted() {
    return created.get() + failures.size();
  }

  public int created() {
    return created.get();
  }

  public List<String> failures() {
    return List.copyOf(failures);
  }

  /** Lets the burst end once {@code minimum} pods were created; waits for its threads. */
  public void finish() throws InterruptedException {
    finishing.set(true);
    for (Thread t : threads) {
      t.join(limit.toMillis());
    }
  }

  /**
   * Deletes the burst's pods at once (they are bound to fake Nodes, where no kubelet ends them):
   * one collection delete, on a client whose request timeout covers the API server deleting a
   * thousand pods in one call.
   */
  public void deletePods() {
    Config slow =
        new ConfigBuilder(admin.getConfiguration())
            .withRequestTimeout((int) Duration.ofMinutes(3).toMillis())
            .build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(slow).build()) {
      client.pods().inNamespace(namespace).withLabel("burst", name).withGracePeriod(0).delete();
    }
  }

  @Override
  public void close() throws InterruptedException {
    finish();
  }
}
