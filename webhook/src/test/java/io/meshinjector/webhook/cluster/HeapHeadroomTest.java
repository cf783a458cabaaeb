package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HeapHeadroomTest {
  private static final long MIB = 1 << 20;
  private final AtomicLong used = new AtomicLong(40 * MIB);

  /** What a full collection leaves: the heap in use after it. */
  private final AtomicLong live = new AtomicLong(40 * MIB);

  private final AtomicLong nanos = new AtomicLong();
  private final AtomicInteger collections = new AtomicInteger();

  private HeapHeadroom headroom(Long limitMib) {
    return new HeapHeadroom(
        used::get,
        80 * MIB,
        limitMib,
        () -> {
          collections.incrementAndGet();
          used.set(live.get());
        },
        nanos::get);
  }

  /** The heap at {@code mib} after any collection, young or full. */
  private void holds(long mib) {
    used.set(mib * MIB);
    live.set(mib * MIB);
  }

  private void later(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void aViewPastTheEdgeIsNamedOnceWithTheLimitToSetAndFitsAgainOnlyAfterStayingBelowIt() {
    HeapHeadroom h = headroom(384L);
    assertThat(h.sample(20_000, true)).isEmpty();
    assertThat(h.fits()).isTrue();

    holds(70); // 87.5 %, after a full collection too
    String line = h.sample(30_000, true).orElseThrow();
    assertThat(h.fits()).isFalse();
    assertThat(collections).hasValue(1);
    // 70 MiB at 70 % is a 100 MiB heap (128 rounded up to 64), but never less than 64 MiB more
    // than the heap now (80 + 64 = 144, 192 rounded): a limit of 192 + 304
    assertThat(line)
        .contains("30000 nodes")
        .contains("heap of 80 MiB")
        .contains("70 MiB in use")
        .contains("resources.limits.memory")
        .contains("at least 496Mi")
        .contains("now 384Mi");
    // said once, not at every tick; not yet so full that new nodes are left out
    later(HeapHeadroom.CONFIRM_EVERY);
    assertThat(h.sample(30_000, true)).isEmpty();
    assertThat(h.full()).isFalse();
    holds(77); // 96 %
    later(HeapHeadroom.CONFIRM_EVERY);
    assertThat(h.sample(30_000, true)).isEmpty();
    assertThat(h.full()).isTrue();
    holds(50);
    assertThat(h.sample(30_000, true)).isEmpty();
    assertThat(h.fits()).as("not on the first figure below the mark").isFalse();
    later(HeapHeadroom.RECOVER);
    assertThat(h.sample(30_000, true).orElseThrow()).contains("fits the heap again");
    assertThat(h.fits()).isTrue();
  }

  @Test
  void theFirstListsPeakIsNamedButAFittingReplicaIsJudgedAgainOnceTheListIsIn() {
    HeapHeadroom h = headroom(384L);
    // reading the first list: 90 % after a young collection, 75 % after a full one: it fits
    used.set(72 * MIB);
    live.set(60 * MIB);
    assertThat(h.sample(3_000, false)).isEmpty();
    assertThat(collections).hasValue(1);
    assertThat(h.fits()).isTrue();
    // further into the list, 87.5 % even after a full collection: named while the list is read
    // (a list that does not fit may never end)
    holds(70);
    later(HeapHeadroom.CONFIRM_EVERY);
    assertThat(h.sample(4_000, false).orElseThrow()).contains("4000 nodes").contains("496Mi");
    assertThat(h.fits()).isFalse();
    // the list is in: its pages are garbage, a young collection's figure still counts them; the
    // first sample asks for a full collection at once and the replica fits without waiting
    used.set(70 * MIB);
    live.set(60 * MIB);
    assertThat(h.sample(5_000, true).orElseThrow()).contains("fits the heap again");
    assertThat(collections).hasValue(3);
    assertThat(h.fits()).isTrue();
    // young collections' figures past the mark: at most one full collection per CONFIRM_EVERY,
    // and a fitting replica stays Ready
    used.set(70 * MIB);
    later(Duration.ofMillis(10));
    assertThat(h.sample(5_000, true)).isEmpty();
    assertThat(collections).hasValue(3);
    later(HeapHeadroom.CONFIRM_EVERY);
    assertThat(h.sample(5_000, true)).isEmpty();
    assertThat(collections).hasValue(4);
    assertThat(h.fits()).isTrue();
  }

  @Test
  void aReplicaThatFitsAtRestIsNotStrandedBetweenMarks() {
    HeapHeadroom h = headroom(384L);
    holds(70); // a burst: 87.5 % after a full collection
    assertThat(h.sample(10_000, true)).isPresent();
    assertThat(h.fits()).isFalse();
    // at rest it holds 80 %: below the mark at which it stops fitting (the old rule asked for 70 %)
    used.set(70 * MIB); // young collections' figures still past the mark
    live.set(64 * MIB);
    later(HeapHeadroom.CONFIRM_EVERY);
    assertThat(h.sample(10_000, true)).isEmpty();
    assertThat(h.fits()).isFalse();
    // a young collection's figure again; the full collection it asks for finds 80 %: the clock
    // that started at the first figure below the mark runs on
    used.set(70 * MIB);
    later(HeapHeadroom.RECOVER.minus(Duration.ofSeconds(1)));
    assertThat(h.sample(10_000, true)).isEmpty();
    later(Duration.ofSeconds(1));
    assertThat(h.sample(10_000, true).orElseThrow()).contains("fits the heap again");
    assertThat(h.fits()).isTrue();
  }

  @Test
  void theFirstListPastTheExhaustedMarkIsNamedBeforeTheSync() {
    HeapHeadroom h = headroom(384L);
    holds(77); // 96 % after a full collection, the list not yet in
    assertThat(h.sample(20_000, false).orElseThrow()).contains("20000 nodes").contains("Mi");
    assertThat(h.fits()).isFalse();
    assertThat(h.full()).isTrue();
  }

  @Test
  void outsideAContainerTheLineNamesTheHeapToGive() {
    holds(75);
    HeapHeadroom h = headroom(null);
    assertThat(h.sample(25_000, true).orElseThrow())
        .contains("MESH_INJECTOR_MAX_HEAP")
        .contains("at least 192m");
  }

  @Test
  void beforeAnyCollectionNothingIsKnownAndTheViewFits() {
    used.set(-1);
    HeapHeadroom h = headroom(384L);
    assertThat(h.sample(1, true)).isEmpty();
    assertThat(h.fits()).isTrue();
    assertThat(h.usedShare()).isNaN();
  }

  @Test
  void theStartWarnsNearTheEdgeButNotPastIt() {
    HeapHeadroom h = headroom(384L);
    used.set(64 * MIB); // 80 %
    assertThat(h.warning(5000).orElseThrow()).contains("nearly full").contains("5000 nodes");
    used.set(30 * MIB);
    assertThat(h.warning(5000)).isEmpty();
  }
}
