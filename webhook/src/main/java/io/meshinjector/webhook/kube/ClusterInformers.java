package io.meshinjector.webhook.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.config.CniDaemonSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds an {@link InMemoryClusterView} from four informers: Nodes, Namespaces, NodeCapabilities,
 * and the mesh CNI DaemonSet's pods. Every object is trimmed on arrival, in the handlers and in the
 * informers' own caches. fabric8's informers re-list and re-watch by themselves after the API
 * server comes back; meanwhile the view keeps the last state it had, and {@link #age()} grows.
 *
 * <p>Nodes and Namespaces are required: no decision can be made without them, so {@link #synced()}
 * waits for them. NodeCapabilities (the CRD may be missing or not yet established) and the CNI pods
 * (their namespace, and the chart's Role there, may not exist) are optional: until they can be
 * listed the verdicts they feed stay {@code unknown}, {@link #sourceSynced} says so, and they join
 * the view as soon as a retry succeeds.
 */
public final class ClusterInformers implements ViewHealth, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterInformers.class);

  /** The sources, required ones first. */
  static final List<String> SOURCES =
      List.of("nodes", "namespaces", "nodecapabilities", "cni-pods");

  /**
   * Objects per page of the informers that list through fabric8 (NodeCapabilities, the CNI pods: a
   * few per node at most). Nodes and Namespaces are streamed, one object at a time: a whole list of
   * 5,000 Nodes decoded at once ran a 307 MiB heap out of memory.
   */
  static final long PAGE = 250;

  /** How often the watch state is sampled for {@link #age()}. */
  static final Duration TICK = Duration.ofMillis(250);

  private final KubernetesClient client;
  private final InMemoryClusterView view;
  private final CniDaemonSet cni;
  private final Clock clock;
  private final List<Consumer<String>> nodeListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<InformerSource> sources = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** CNI pod (namespace/name) to the node it makes ready. */
  private final Map<String, String> readyCniPods = new ConcurrentHashMap<>();

  private final ScheduledExecutorService ticker;

  /** Where the streamed lists are read and the informers tell their handlers. */
  private final ExecutorService lists =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "cluster-view-list");
            t.setDaemon(true);
            return t;
          });

  private final List<Consumer<String>> namespaceListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The Node informer's cache: each node as its name, resourceVersion and shared template. */
  private final CompactNodeStore nodeStore = new CompactNodeStore();

  private final HeapHeadroom headroom;

  /**
   * New nodes the view left out because it did not fit the heap: it would have died of them. Once
   * any was, the view is incomplete and the replica stays not ready until it restarts.
   */
  private final java.util.concurrent.atomic.AtomicLong shed =
      new java.util.concurrent.atomic.AtomicLong();

  private StreamedLister<Node> nodeLister;
  private SharedIndexInformer<Node> nodeInformer;
  private SharedIndexInformer<Namespace> namespaceInformer;
  private volatile boolean synced;
  private volatile boolean closed;
  private volatile Instant lastInSync;

  public ClusterInformers(
      KubernetesClient client, InMemoryClusterView view, CniDaemonSet cni, Clock clock) {
    this(client, view, cni, clock, HeapHeadroom.ofThisJvm());
  }

  ClusterInformers(
      KubernetesClient client,
      InMemoryClusterView view,
      CniDaemonSet cni,
      Clock clock,
      HeapHeadroom headroom) {
    this.headroom = Objects.requireNonNull(headroom, "headroom");
    this.client = Objects.requireNonNull(client, "client");
    this.view = Objects.requireNonNull(view, "view");
    this.cni = Objects.requireNonNull(cni, "cni");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cluster-view-age");
              t.setDaemon(true);
              return t;
            });
  }

  /** Called with a node's name whenever something that may change its verdicts changed. */
  public void onNodeChanged(Consumer<String> listener) {
    nodeListeners.add(listener);
  }

  /** Called with a namespace's name whenever it was added, changed or deleted. */
  public void onNamespaceChanged(Consumer<String> listener) {
    namespaceListeners.add(listener);
  }

  /**
   * Asks for the first list of Nodes now, before {@link #start}: at 20,000 Nodes it is 277 MB that
   * the API server takes seconds to begin sending, and {@code serve} calls this before Spring
   * starts so the two overlap. Nothing is logged or written until {@link #start}.
   */
  public synchronized void listNodesNow() {
    nodeLister().listNow();
  }

  private synchronized StreamedLister<Node> nodeLister() {
    if (nodeLister == null) {
      nodeLister =
          lister(
              client.nodes(),
              "api/v1/nodes",
              StreamedList.ItemReader.trimmedNodes(),
              Trimmed::node,
              nodeStore);
    }
    return nodeLister;
  }

  /** Starts the informers without waiting for them; {@link #synced()} tells when they are. */
  public synchronized void start() {
    nodeInformer = informer("nodes", true, streamed(Node.class, nodeLister()), nodeStore, null);
    nodeStore.listener(
        new CompactNodeStore.Listener() {
          @Override
          public void stored(Node node) {
            if (headroom.full() && !view.hasNode(node.getMetadata().getName())) {
              if (shed.getAndIncrement() == 0) {
                LOG.error(
                    "cluster view: leaving out new nodes from {} on, as the heap is full; not"
                        + " ready until restarted with more memory",
                    node.getMetadata().getName());
              }
              return;
            }
            view.upsertNode(Trimmed.withoutPublishedLabels(node));
            changed(node.getMetadata().getName());
          }

          @Override
          public void removed(String name) {
            view.removeNode(name);
            changed(name);
          }
        });
    namespaceInformer =
        informer(
            "namespaces",
            true,
            streamed(
                Namespace.class,
                lister(
                    client.namespaces(),
                    "api/v1/namespaces",
                    StreamedLister.bound(Namespace.class, Trimmed::namespace),
                    Trimmed::namespace,
                    StreamedLister.Packer.none())),
            new TrimmingStore<>(UnaryOperator.identity()),
            new Handler<Namespace>() {
              @Override
              void upsert(Namespace ns) {
                view.upsertNamespace(ns);
                namespaceChanged(ns.getMetadata().getName());
              }

              @Override
              void remove(Namespace ns) {
                view.removeNamespace(ns.getMetadata().getName());
                namespaceChanged(ns.getMetadata().getName());
              }
            });
    informer(
        "nodecapabilities",
        false,
        client
            .genericKubernetesResources(NodeCapabilityResource.CONTEXT)
            .withLimit(PAGE)
            .runnableInformer(0),
        new TrimmingStore<>(ClusterInformers::trimNodeCapability),
        new Handler<GenericKubernetesResource>() {
          @Override
          void upsert(GenericKubernetesResource report) {
            String node = report.getMetadata().getName();
            try {
              view.upsert(report);
            } catch (IllegalArgumentException e) {
              // a malformed report tells nothing: the node falls back to its other sources
              LOG.warn("ignoring a malformed report: {}", e.getMessage());
              view.removeNodeCapability(node);
            }
            changed(node);
          }

          @Override
          void remove(GenericKubernetesResource report) {
            view.removeNodeCapability(report.getMetadata().getName());
            changed(report.getMetadata().getName());
          }
        });
    informer(
        "cni-pods",
        false,
        client
            .pods()
            .inNamespace(cni.namespace())
            .withLabels(cni.podSelector())
            .withLimit(PAGE)
            .runnableInformer(0),
        new TrimmingStore<>(Trimmed::cniPod),
        new Handler<Pod>() {
          @Override
          void upsert(Pod pod) {
            cniPod(key(pod), CniPodReadiness.readyNode(pod));
          }

          @Override
          void remove(Pod pod) {
            cniPod(key(pod), Optional.empty());
          }
        });
    sources.forEach(InformerSource::start);
    ticker.scheduleWithFixedDelay(this::sample, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** An informer on {@code lister}: its cache and handlers get the objects trimmed. */
  private <T extends HasMetadata> SharedIndexInformer<T> streamed(
      Class<T> type, StreamedLister<T> lister) {
    return new DefaultSharedIndexInformer<T, StreamedLister.Items<T>>(type, lister, 0, lists);
  }

  /**
   * A lister whose lists are streamed and whose objects, listed or watched, arrive trimmed ({@link
   * StreamedLister}).
   *
   * @throws IllegalStateException when fabric8's operation is not the lister its own informers are
   *     built on (a fabric8 version that changed that), naming it, rather than reading the cluster
   *     another way
   */
  @SuppressWarnings("unchecked")
  private <T extends HasMetadata> StreamedLister<T> lister(
      Object operation,
      String path,
      StreamedList.ItemReader<T> listed,
      UnaryOperator<T> trim,
      StreamedLister.Packer<T> packer) {
    if (!(operation instanceof ListerWatcher<?, ?> watcher)) {
      throw new IllegalStateException(
          "fabric8's " + operation.getClass().getName() + " is no informer lister");
    }
    return new StreamedLister<>(
        client, path, listed, trim, (ListerWatcher<T, ?>) watcher, lists, packer);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> informer(
      String name,
      boolean required,
      SharedIndexInformer<T> informer,
      ItemStore<T> store,
      ResourceEventHandler<T> handler /* null: the store tells of changes itself */) {
    InformerSource source = new InformerSource(name, required, informer, describe(name));
    informer.itemStore(store);
    // nothing looks objects up by namespace: the index would hold every object's key once more
    informer.removeNamespaceIndex();
    if (handler != null) {
      informer.addEventHandler(handler);
    }
    informer.exceptionHandler(
        (isStarted, t) -> {
          if (closed) {
            return false;
          }
          source.failed(t);
          return true;
        });
    sources.add(source);
    return informer;
  }

  private String describe(String name) {
    return switch (name) {
      case "nodecapabilities" -> "NodeCapabilities (the probe's verdicts)";
      case "cni-pods" ->
          "the mesh CNI pods in namespace " + cni.namespace() + " (cni: ready on their nodes)";
      default -> name;
    };
  }

  private void cniPod(String pod, Optional<String> readyOn) {
    String before =
        readyOn.isPresent() ? readyCniPods.put(pod, readyOn.get()) : readyCniPods.remove(pod);
    for (String node : new String[] {before, readyOn.orElse(null)}) {
      if (node != null) {
        // during a rolling update two pods of the DaemonSet may share a node
        view.setCniReady(node, readyCniPods.containsValue(node));
        changed(node);
      }
    }
  }

  private void changed(String node) {
    tell(nodeListeners, "node", node);
  }

  private void namespaceChanged(String namespace) {
    tell(namespaceListeners, "namespace", namespace);
  }

  private static void tell(List<Consumer<String>> listeners, String kind, String name) {
    for (Consumer<String> listener : listeners) {
      try {
        listener.accept(name);
      } catch (RuntimeException e) {
        LOG.warn("a listener failed on {} {}: {}", kind, name, e.toString());
      }
    }
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  private static GenericKubernetesResource trimNodeCapability(GenericKubernetesResource r) {
    GenericKubernetesResource out = new GenericKubernetesResource();
    out.setApiVersion(r.getApiVersion());
    out.setKind(r.getKind());
    out.setMetadata(
        new ObjectMetaBuilder()
            .withName(r.getMetadata().getName())
            .withResourceVersion(r.getMetadata().getResourceVersion())
            .build());
    Object status = r.getAdditionalProperties().get("status");
    if (status != null) {
      out.setAdditionalProperty("status", status);
    }
    return out;
  }

  private void sample() {
    sources.forEach(InformerSource::sample);
    boolean justSynced = false;
    if (!synced
        && sources.stream().filter(InformerSource::required).allMatch(InformerSource::hasSynced)) {
      // the lists just delivered the whole state; the watches follow within moments
      lastInSync = clock.instant();
      LOG.info(
          "cluster view in sync: {} nodes, {} cni-ready",
          nodeStore.size(),
          Set.copyOf(readyCniPods.values()).size());
      justSynced = true;
      sources.stream()
          .filter(s -> !s.hasSynced())
          .forEach(
              s ->
                  LOG.warn(
                      "cluster view: ready without {} ({} for now); it joins once it can be read",
                      s.name(),
                      s.name().equals("cni-pods")
                          ? "every node's cni is unknown"
                          : "no node has a probe verdict"));
    }
    if ((synced || justSynced)
        && sources.stream().filter(InformerSource::required).allMatch(InformerSource::isWatching)) {
      lastInSync = clock.instant();
    }
    // judged once the first list is in (its own peak is no verdict, what stays after it is), and
    // before the view says it is synced, so that a view that does not fit is never Ready between
    headroom
        .sample(view.nodeCount(), synced || justSynced)
        .ifPresent(
            line -> {
              if (headroom.fits()) {
                LOG.info(line);
              } else {
                LOG.error(line);
              }
            });
    if (justSynced) {
      synced = true;
      headroom.warning(nodeStore.size()).ifPresent(LOG::warn);
    }
  }

  @Override
  public boolean synced() {
    if (!synced) {
      sample();
    }
    return synced;
  }

  @Override
  public Optional<Duration> age() {
    sample();
    Instant at = lastInSync;
    if (!synced || at == null) {
      return Optional.empty();
    }
    Duration age = Duration.between(at, clock.instant());
    return Optional.of(age.isNegative() ? Duration.ZERO : age);
  }

  @Override
  public boolean fits() {
    return headroom.fits() && shed.get() == 0;
  }

  @Override
  public double heapUsedShare() {
    return headroom.usedShare();
  }

  @Override
  public double nodeShapes() {
    return nodeStore.templates();
  }

  @Override
  public List<String> sourceNames() {
    return SOURCES;
  }

  @Override
  public boolean sourceSynced(String name) {
    return sources.stream().anyMatch(s -> s.name().equals(name) && s.hasSynced());
  }

  /** The names of the nodes as last seen. */
  public List<String> nodeNames() {
    return nodeStore.keySet().toList();
  }

  /** The namespaces as last seen, trimmed (labels and annotations kept). */
  public Collection<Namespace> namespaces() {
    return namespaceInformer == null ? List.of() : namespaceInformer.getStore().list();
  }

  public Optional<Namespace> namespace(String name) {
    return namespaceInformer == null
        ? Optional.empty()
        : Optional.ofNullable(namespaceInformer.getStore().getByKey(name));
  }

  public Optional<Node> node(String name) {
    return nodeInformer == null
        ? Optional.empty()
        : Optional.ofNullable(nodeInformer.getStore().getByKey(name));
  }

  @Override
  public synchronized void close() {
    closed = true;
    ticker.shutdownNow();
    sources.forEach(InformerSource::close);
    lists.shutdownNow();
  }

  /** Add and update do the same: the state wins, not the transition. */
  private abstract static class Handler<T> implements ResourceEventHandler<T> {
    abstract void upsert(T object);

    abstract void remove(T object);

    @Override
    public void onAdd(T object) {
      upsert(object);
    }

    @Override
    public void onUpdate(T oldObject, T newObject) {
      upsert(newObject);
    }

    @Override
    public void onDelete(T object, boolean deletedFinalStateUnknown) {
      remove(object);
    }
  }
}
