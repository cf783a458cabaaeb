package io.meshinjector.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.testing.K8s;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The first admissions after a replica turns Ready arrive together, and the first of them builds
 * the view's index. The others must wait for that build: the index before it holds no node, and a
 * decision over it is one for a node whose capabilities are all unknown (seen as a few pods of a
 * load test's first burst coming out with the proxy as a regular container and no constraint).
 */
class FirstRebuildTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  private static final int NODES = 50;

  @Test
  void aReadDuringTheFirstBuildWaitsForItInsteadOfTakingAnIndexOfNoNodes() throws Exception {
    CountDownLatch building = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    // the ticker is read as a rebuild starts: the first build stops there until released
    InMemoryClusterView view =
        new InMemoryClusterView(
            ConfigLoader.defaults().engine().capabilities(),
            w -> {},
            () -> {
              if (first.getAndSet(false)) {
                building.countDown();
                try {
                  release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return System.nanoTime();
            });
    for (int i = 0; i < NODES; i++) {
      view.upsertNode(K8s.node("n" + i, K8s.RHEL8, "v1.31.0"));
    }
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<NodeIndex> builder =
          CompletableFuture.supplyAsync(() -> view.nodes(NOW), threads);
      assertThat(building.await(10, TimeUnit.SECONDS)).as("the first build started").isTrue();
      CompletableFuture<NodeIndex> reader =
          CompletableFuture.supplyAsync(() -> view.nodes(NOW), threads);
      // time for the reader to take whatever index it would take while the build is held
      Thread.sleep(300);
      release.countDown();
      assertThat(reader.get(10, TimeUnit.SECONDS).size())
          .as("nodes in the index the concurrent reader got")
          .isEqualTo(NODES);
      assertThat(reader.get()).isSameAs(builder.get(10, TimeUnit.SECONDS));
    } finally {
      release.countDown();
      threads.shutdownNow();
    }
  }
}
