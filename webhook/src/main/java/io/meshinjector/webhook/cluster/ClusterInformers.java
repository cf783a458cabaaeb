package io.meshinjector.webhook.cluster;

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
import io.meshinjector.webhook.lists.StreamedList;
import io.meshinjector.webhook.lists.Trimmed;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds an {@link InMemoryClusterView} from four informers: Nodes, Namespaces, NodeCapabilities,
 * and the mesh CNI DaemonSet's pods. Every object is trimmed on arrival, in the handlers and in the
 * informers' own caches. fabric8's informers re-list and re-watch by themselves after the API
 * server comes back; meanwhile the view keeps the last state it had, and its {@link #health()}'s
 * age grows.
 *
 * <p>Nodes and Namespaces are required: no decision can be made without them, so the health is
 * synced only once they are. NodeCapabilities (the CRD may be missing or not yet established) and
 * the CNI pods (their namespace, and the chart's Role there, may not exist) are optional: until
 * they can be listed the verdicts they feed stay {@code unknown}, the health says so, and they join
 * the view as soon as a retry succeeds.
 *
 * <p>This class wires the informers; {@link InformerHealth} samples them, and {@link
 * InformerCaches} serves what the label writers read of them.
 */
public final class ClusterInformers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterInformers.class);

  /**
   * Objects per page of the informers that list through fabric8 (NodeCapabilities, the CNI pods: a
   * few per node at most). Nodes and Namespaces are streamed, one object at a time: a whole list of
   * 5,000 Nodes decoded at once ran a 307 MiB heap out of memory.
   */
  static final long PAGE = 250;

  private final KubernetesClient client;
  private final InMemoryClusterView view;
  private final CniDaemonSet cni;

  /** CNI pod (namespace/name) to the node it makes ready. */
  private final Map<String, String> readyCniPods = new ConcurrentHashMap<>();

  /** Where the streamed lists are read and the informers tell their handlers. */
  private final ExecutorService lists =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "cluster-view-list");
            t.setDaemon(true);
            return t;
          });

  /** The Node informer's cache: each node as its name, resourceVersion and shared template. */
  private final CompactNodeStore nodeStore = new CompactNodeStore();

  private final InformerHealth health;
  private final InformerCaches caches = new InformerCaches(nodeStore);
  private StreamedLister<Node> nodeLister;
  private volatile boolean closed;

  public ClusterInformers(
      KubernetesClient client, InMemoryClusterView view, CniDaemonSet cni, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.view = Objects.requireNonNull(view, "view");
    this.cni = Objects.requireNonNull(cni, "cni");
    this.health =
        new InformerHealth(
            view,
            nodeStore,
            () -> Set.copyOf(readyCniPods.values()).size(),
            HeapHeadroom.ofThisJvm(),
            clock);
  }

  /** The view's health: sync, age, heap. */
  public InformerHealth health() {
    return health;
  }

  /** What the label writers read of the informers. */
  public InformerCaches caches() {
    return caches;
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

  /** Starts the informers without waiting for them; {@link #health()} tells when they synced. */
  public synchronized void start() {
    SharedIndexInformer<Node> nodeInformer =
        informer("nodes", true, streamed(Node.class, nodeLister()), nodeStore, null);
    nodeStore.listener(
        new CompactNodeStore.Listener() {
          @Override
          public void stored(Node node) {
            if (!health.admits(node.getMetadata().getName())) {
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
    SharedIndexInformer<Namespace> namespaceInformer =
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
    caches.informers(nodeInformer, namespaceInformer);
    health.start();
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
    health.add(source);
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
    caches.nodeChanged(node);
  }

  private void namespaceChanged(String namespace) {
    caches.namespaceChanged(namespace);
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

  @Override
  public synchronized void close() {
    closed = true;
    health.close();
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
