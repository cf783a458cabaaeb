package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HeapHeadroomTest {
  private static final long MIB = 1 << 20;
  private final AtomicLong used = new AtomicLong(40 * MIB);

  @Test
  void aViewPastTheEdgeIsNamedOnceWithTheLimitToSetAndFitsAgainOnlyWellBelowIt() {
    HeapHeadroom h = new HeapHeadroom(used::get, 80 * MIB, 384L);
    assertThat(h.sample(20_000)).isEmpty();
    assertThat(h.fits()).isTrue();

    used.set(70 * MIB); // 87.5 %
    String line = h.sample(30_000).orElseThrow();
    assertThat(h.fits()).isFalse();
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
    assertThat(h.sample(30_000)).isEmpty();
    assertThat(h.full()).isFalse();
    used.set(77 * MIB); // 96 %
    assertThat(h.sample(30_000)).isEmpty();
    assertThat(h.full()).isTrue();
    used.set(62 * MIB); // 77.5 %: between the two marks, still not fitting
    assertThat(h.sample(30_000)).isEmpty();
    assertThat(h.fits()).isFalse();
    used.set(50 * MIB);
    assertThat(h.sample(30_000).orElseThrow()).contains("fits the heap again");
    assertThat(h.fits()).isTrue();
  }

  @Test
  void outsideAContainerTheLineNamesTheHeapToGive() {
    used.set(75 * MIB);
    HeapHeadroom h = new HeapHeadroom(used::get, 80 * MIB, null);
    assertThat(h.sample(25_000).orElseThrow())
        .contains("MESH_INJECTOR_MAX_HEAP")
        .contains("at least 192m");
  }

  @Test
  void beforeAnyCollectionNothingIsKnownAndTheViewFits() {
    used.set(-1);
    HeapHeadroom h = new HeapHeadroom(used::get, 80 * MIB, 384L);
    assertThat(h.sample(1)).isEmpty();
    assertThat(h.fits()).isTrue();
    assertThat(h.usedShare()).isNaN();
  }

  @Test
  void theStartWarnsNearTheEdgeButNotPastIt() {
    HeapHeadroom h = new HeapHeadroom(used::get, 80 * MIB, 384L);
    used.set(64 * MIB); // 80 %
    assertThat(h.warning(5000).orElseThrow()).contains("nearly full").contains("5000 nodes");
    used.set(30 * MIB);
    assertThat(h.warning(5000)).isEmpty();
  }
}
