package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.meshinjector.webhook.lists.StreamedList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An informer's lister that reads its lists through {@link StreamedList} and watches as fabric8
 * does. fabric8's own lister reads pages from etcd, each buffered whole; for 5,000 Nodes that took
 * the API server 4 to 6 s on these machines, against 1.7 s for the first list from its watch cache
 * ({@code resourceVersion=0}, as client-go's informers start). Later lists, after a watch expired,
 * are read from etcd ({@code resourceVersion} unset), so a re-list never goes back in time; they
 * are streamed as well.
 *
 * <p>Each object is trimmed once, as it is decoded: a listed one before the next is read, so the
 * list the informer receives holds only what its cache keeps, and a watched one before the informer
 * sees it. The informer's cache and handlers get them trimmed.
 */
final class StreamedLister<T extends HasMetadata>
    implements ListerWatcher<T, StreamedLister.Items<T>> {
  private static final Logger LOG = LoggerFactory.getLogger(StreamedLister.class);

  /** A list as the informer reads it: its metadata and its items. */
  record Items<T extends HasMetadata>(ListMeta getMetadata, List<T> getItems)
      implements KubernetesResourceList<T> {}

  /**
   * How a listed object is held until the informer has read the list: the informer takes the whole
   * list before it stores any of it, so 20,000 trimmed Node objects (about 1.2 kB each) were held
   * at once at start, on top of the view, and that peak, not the view, decided the heap a cluster
   * needs. A packer holds each compactly and makes the object again when the informer reads it.
   */
  interface Packer<T> {
    Object pack(T object);

    T unpack(Object packed);

    @SuppressWarnings("unchecked")
    static <T> Packer<T> none() {
      return (Packer<T>) NONE;
    }

    Packer<Object> NONE =
        new Packer<>() {
          @Override
          public Object pack(Object object) {
            return object;
          }

          @Override
          public Object unpack(Object packed) {
            return packed;
          }
        };
  }

  private final KubernetesClient client;
  private final String path;
  private final StreamedList.ItemReader<T> listed;
  private final UnaryOperator<T> trim;
  private final ListerWatcher<T, ?> watcher;
  private final Executor executor;
  private final Packer<T> packer;
  private volatile boolean listedOnce;

  /** A first list asked for before the informer started ({@link #listNow}), until it takes it. */
  private CompletableFuture<Listing<T>> early;

  /**
   * @param listed how a listed object is read, trimmed: {@link #bound}, or a reader that keeps only
   *     what {@code trim} would as it parses
   * @param trim what a watched object is trimmed to
   * @param watcher fabric8's lister for the same resources, for the watches
   * @param executor where the blocking reads run: never the caller, which may be an event loop
   */
  StreamedLister(
      KubernetesClient client,
      String path,
      StreamedList.ItemReader<T> listed,
      UnaryOperator<T> trim,
      ListerWatcher<T, ?> watcher,
      Executor executor,
      Packer<T> packer) {
    this.packer = packer;
    this.client = client;
    this.path = path;
    this.listed = listed;
    this.trim = trim;
    this.watcher = watcher;
    this.executor = executor;
  }

  /** Each listed object bound as {@code type}, then trimmed. */
  static <T> StreamedList.ItemReader<T> bound(Class<T> type, UnaryOperator<T> trim) {
    StreamedList.ItemReader<T> bind = StreamedList.ItemReader.bound(type);
    return parser -> trim.apply(bind.read(parser));
  }

  /**
   * Asks for the first list now, before the informer starts: {@code serve} does so as soon as it
   * has a client, so that the API server's seconds of work on a large cluster's list, and the read,
   * overlap Spring's start. The informer's first {@link #submitList} takes it, done or not: a
   * failure is then the informer's, reported and retried as any other once the logging is set up.
   */
  synchronized void listNow() {
    if (early == null && !listedOnce) {
      early = CompletableFuture.supplyAsync(() -> list(Map.of()), executor);
    }
  }

  @Override
  public CompletableFuture<Items<T>> submitList(ListOptions options) {
    CompletableFuture<Listing<T>> first;
    synchronized (this) {
      first = early;
      early = null;
    }
    // the first list may be as old as the watch cache; a re-list must not be older than what the
    // informer has already seen
    CompletableFuture<Listing<T>> listing =
        first != null
            ? first
            : CompletableFuture.supplyAsync(
                () -> list(listedOnce ? Map.of("resourceVersion", "") : Map.of()), executor);
    // on the list's executor: an early list may be done already, and the informer's processing of
    // it must not run on the thread that called, which is Spring's start
    return listing.thenApplyAsync(
        done -> {
          // logged as the informer takes it: an early list may end before the logging is set up
          LOG.info(
              "listed {}: {} objects, {} MB of {} in {} ms",
              path,
              done.listed().items(),
              done.listed().bytes() / 1_000_000,
              done.listed().encoding(),
              done.millis());
          listedOnce = true;
          return done.items();
        },
        executor);
  }

  /** A list read: what the informer receives, and what the log line says of it. */
  private record Listing<T extends HasMetadata>(
      Items<T> items, StreamedList.Listed listed, long millis) {}

  private Listing<T> list(Map<String, String> query) {
    List<Object> packed = new ArrayList<>();
    long start = System.nanoTime();
    StreamedList.Listed list =
        StreamedList.forEach(client, path, query, listed, item -> packed.add(packer.pack(item)));
    Items<T> items =
        new Items<>(
            list.metadata(),
            new java.util.AbstractList<T>() {
              @Override
              public T get(int index) {
                return packer.unpack(packed.get(index));
              }

              @Override
              public int size() {
                return packed.size();
              }
            });
    return new Listing<>(items, list, (System.nanoTime() - start) / 1_000_000);
  }

  @Override
  public CompletableFuture<AbstractWatchManager<T>> submitWatch(
      ListOptions options, Watcher<T> events) {
    return watcher.submitWatch(options, new Trimming(events));
  }

  /** The informer's watcher, handed each object trimmed. */
  private final class Trimming implements Watcher<T> {
    private final Watcher<T> events;

    Trimming(Watcher<T> events) {
      this.events = events;
    }

    @Override
    public void eventReceived(Action action, T resource) {
      events.eventReceived(action, resource == null ? null : trim.apply(resource));
    }

    @Override
    public boolean reconnecting() {
      return events.reconnecting();
    }

    @Override
    public void onClose() {
      events.onClose();
    }

    @Override
    public void onClose(WatcherException cause) {
      events.onClose(cause);
    }
  }

  @Override
  public Long getLimit() {
    return null;
  }

  @Override
  public int getWatchReconnectInterval() {
    return watcher.getWatchReconnectInterval();
  }

  @Override
  public String getApiEndpointPath() {
    return watcher.getApiEndpointPath();
  }

  @Override
  public Config getConfig() {
    return watcher.getConfig();
  }
}
