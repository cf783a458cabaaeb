package io.meshinjector.webhook.lists;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.http.AsyncBody;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PrefetchedBodyTest {
  private static final int CHUNK = 1000;

  private final ExecutorService loop = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() throws InterruptedException {
    loop.shutdownNow();
    assertThat(loop.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * A response body as fabric8's Vert.x client gives it: paused, one chunk per {@code consume()},
   * delivered on its own thread (the event loop). It keeps its own account of what the reader holds
   * ahead: the bytes it has handed over less those the test says it has read.
   */
  private final class Connection implements AsyncBody {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final AtomicInteger fetches = new AtomicInteger();
    final AtomicBoolean cancelled = new AtomicBoolean();
    final AtomicLong handedOver = new AtomicLong();
    final AtomicLong taken = new AtomicLong();
    final AtomicLong mostAhead = new AtomicLong();
    final byte[] bytes;
    final RuntimeException failAtEnd;
    PrefetchedBody reader;
    int sent;

    Connection(int size, RuntimeException failAtEnd) {
      bytes = new byte[size];
      for (int i = 0; i < size; i++) {
        bytes[i] = (byte) (i * 31 + i / 7);
      }
      this.failAtEnd = failAtEnd;
    }

    @Override
    public void consume() {
      fetches.incrementAndGet();
      loop.execute(
          () -> {
            if (sent == bytes.length) {
              return;
            }
            int n = Math.min(CHUNK, bytes.length - sent);
            ByteBuffer chunk = ByteBuffer.wrap(bytes.clone(), sent, n).slice();
            sent += n;
            reader.consume(List.of(chunk), this);
            long ahead = handedOver.addAndGet(n) - taken.get();
            mostAhead.accumulateAndGet(ahead, Math::max);
            if (sent == bytes.length) {
              if (failAtEnd == null) {
                done.complete(null);
              } else {
                done.completeExceptionally(failAtEnd);
              }
            }
          });
    }

    @Override
    public CompletableFuture<Void> done() {
      return done;
    }

    @Override
    public void cancel() {
      cancelled.set(true);
      done.cancel(false);
    }
  }

  private Connection connect(PrefetchedBody body, int size, RuntimeException failAtEnd) {
    Connection c = new Connection(size, failAtEnd);
    c.reader = body;
    body.start(c);
    return c;
  }

  @Test
  void readsEveryByteInOrderAndNeverHoldsMoreThanTheLimitAndAChunk() throws IOException {
    PrefetchedBody body = new PrefetchedBody(8 * CHUNK);
    Connection c = connect(body, 200 * CHUNK + 123, null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[777];
    for (int n; (n = body.read(buffer, 0, buffer.length)) >= 0; ) {
      c.taken.addAndGet(n);
      out.write(buffer, 0, n);
    }
    assertThat(out.toByteArray()).isEqualTo(c.bytes);
    assertThat(body.read()).isEqualTo(-1);
    // the count of what was read lags the reader by one read at most, so the account may be over
    // by one buffer; without a limit it would be the whole body ahead
    assertThat(c.mostAhead.get()).isLessThanOrEqualTo(9 * CHUNK + buffer.length);
  }

  @Test
  void theConnectionReadsAheadUpToTheLimitWithoutTheReader() throws Exception {
    PrefetchedBody body = new PrefetchedBody(10 * CHUNK);
    Connection c = connect(body, 100 * CHUNK, null);
    // nothing read: the event loop fetched on its own until the limit was reached, not one chunk
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (c.handedOver.get() < 10 * CHUNK && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    // and the loop has nothing more to do: it stopped asking at the limit
    loop.submit(() -> {}).get();
    assertThat(c.fetches.get()).isEqualTo(10);
    assertThat(c.handedOver.get()).isEqualTo(10 * CHUNK);
    assertThat(body.available()).isEqualTo(10 * CHUNK);
  }

  @Test
  void aBodyThatFailsIsReadToWhereItFailedAndThenNamesTheFailure() {
    PrefetchedBody body = new PrefetchedBody(4 * CHUNK);
    connect(body, 3 * CHUNK, new IllegalStateException("connection reset"));
    byte[] all = new byte[3 * CHUNK];
    assertThatThrownBy(
            () -> {
              int at = 0;
              for (int n; (n = body.read(all, at, all.length - at)) >= 0; ) {
                at += n;
                if (at == all.length) {
                  body.read(all, 0, 1);
                }
              }
            })
        .isInstanceOf(IOException.class)
        .hasMessageContaining("connection reset");
  }

  @Test
  void closingBeforeTheEndCancelsTheResponse() throws IOException {
    PrefetchedBody body = new PrefetchedBody(2 * CHUNK);
    Connection c = connect(body, 50 * CHUNK, null);
    assertThat(body.read(new byte[10], 0, 10)).isEqualTo(10);
    body.close();
    assertThat(c.cancelled).isTrue();
    assertThatThrownBy(() -> body.read(new byte[1], 0, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void aLimitBelowOneByteIsRefused() {
    assertThatThrownBy(() -> new PrefetchedBody(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 byte");
  }
}
