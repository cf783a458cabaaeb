package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.client.http.AsyncBody;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A response body as an {@link InputStream}, read ahead of its reader up to {@code limit} bytes.
 *
 * <p>Why not fabric8's own {@code sendAsync(request, InputStream.class)}: it asks the connection
 * for the next chunk only once its reader has used up the last one, so every chunk (at most a TLS
 * record, 16 kB) costs two hand-overs between the list's thread and the event loop. The first list
 * of 20,000 EKS-shaped Nodes is 450 MB of JSON, about 28,000 chunks; on two cores shared with a
 * busy control plane each hand-over waited for a core, and reading the list took about 40 s while
 * {@code curl} drained the same answer in 2 s. Here the event loop keeps fetching on its own until
 * {@code limit} bytes wait, and the reader asks again only once it has read half of them.
 *
 * <p>The buffers fabric8 hands over are copies ({@code Buffer.getBytes()}), so they may be kept.
 */
final class PrefetchedBody extends InputStream implements AsyncBody.Consumer<List<ByteBuffer>> {
  private final long limit;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();
  private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
  private long queued;
  // a fetch has been asked for and its chunk has not come yet
  private boolean fetching;
  private boolean done;
  private boolean closed;
  private Throwable failed;
  private AsyncBody body;

  /**
   * @param limit bytes read ahead at most (plus the chunk that passes it)
   */
  PrefetchedBody(long limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1 byte: " + limit);
    }
    this.limit = limit;
  }

  /** Starts reading {@code body}, which fabric8 hands back paused with the response. */
  void start(AsyncBody body) {
    Objects.requireNonNull(body, "body");
    lock.lock();
    try {
      this.body = body;
      fetching = true;
    } finally {
      lock.unlock();
    }
    body.done().whenComplete((ignored, error) -> ended(error));
    body.consume();
  }

  /** A chunk, on the event loop: kept, and the next one asked for at once while there is room. */
  @Override
  public void consume(List<ByteBuffer> buffers, AsyncBody from) {
    boolean more;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      for (ByteBuffer b : buffers) {
        if (b.hasRemaining()) {
          queue.add(b);
          queued += b.remaining();
        }
      }
      more = queued < limit && !done;
      fetching = more;
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
    if (more) {
      // on the event loop, inside its delivery: Vert.x counts the demand and goes on delivering
      from.consume();
    }
  }

  private void ended(Throwable error) {
    lock.lock();
    try {
      done = true;
      failed = error;
      fetching = false;
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] into, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, into.length);
    if (length == 0) {
      return 0;
    }
    AsyncBody fetchFrom = null;
    int read;
    lock.lock();
    try {
      while (true) {
        if (closed) {
          throw new IOException("the body is closed");
        }
        ByteBuffer head = queue.peek();
        if (head != null) {
          read = Math.min(length, head.remaining());
          head.get(into, offset, read);
          queued -= read;
          if (!head.hasRemaining()) {
            queue.poll();
          }
          if (!fetching && !done && queued <= limit / 2) {
            fetching = true;
            fetchFrom = body;
          }
          break;
        }
        if (failed != null) {
          throw new IOException("the body failed: " + failed.getMessage(), failed);
        }
        if (done) {
          return -1;
        }
        if (!fetching) {
          fetching = true;
          fetchFrom = body;
          read = 0;
          break;
        }
        arrived.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
    if (fetchFrom != null) {
      fetchFrom.consume();
      if (read == 0) {
        // asked for more with nothing queued: wait for it
        return read(into, offset, length);
      }
    }
    return read;
  }

  @Override
  public int available() {
    lock.lock();
    try {
      return (int) Math.min(Integer.MAX_VALUE, queued);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    AsyncBody cancel;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      queue.clear();
      queued = 0;
      cancel = done ? null : body;
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
    if (cancel != null) {
      cancel.cancel();
    }
  }
}
