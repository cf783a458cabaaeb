package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the label writers read of the informers: the Nodes and Namespaces as last seen (trimmed),
 * and a call with a name whenever something about it may have changed. {@link ClusterInformers}
 * fills it; nothing here talks to the API server.
 */
public final class InformerCaches {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterInformers.class);

  private final CompactNodeStore nodeStore;
  private final List<Consumer<String>> nodeListeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<String>> namespaceListeners = new CopyOnWriteArrayList<>();
  private volatile SharedIndexInformer<Node> nodeInformer;
  private volatile SharedIndexInformer<Namespace> namespaceInformer;

  InformerCaches(CompactNodeStore nodeStore) {
    this.nodeStore = nodeStore;
  }

  void informers(SharedIndexInformer<Node> nodes, SharedIndexInformer<Namespace> namespaces) {
    this.nodeInformer = nodes;
    this.namespaceInformer = namespaces;
  }

  /** Called with a node's name whenever something that may change its verdicts changed. */
  public void onNodeChanged(Consumer<String> listener) {
    nodeListeners.add(listener);
  }

  /** Called with a namespace's name whenever it was added, changed or deleted. */
  public void onNamespaceChanged(Consumer<String> listener) {
    namespaceListeners.add(listener);
  }

  /** The names of the nodes as last seen. */
  public List<String> nodeNames() {
    return nodeStore.keySet().toList();
  }

  /** The namespaces as last seen, trimmed (labels and annotations kept). */
  public Collection<Namespace> namespaces() {
    SharedIndexInformer<Namespace> informer = namespaceInformer;
    return informer == null ? List.of() : informer.getStore().list();
  }

  public Optional<Namespace> namespace(String name) {
    SharedIndexInformer<Namespace> informer = namespaceInformer;
    return informer == null
        ? Optional.empty()
        : Optional.ofNullable(informer.getStore().getByKey(name));
  }

  public Optional<Node> node(String name) {
    SharedIndexInformer<Node> informer = nodeInformer;
    return informer == null
        ? Optional.empty()
        : Optional.ofNullable(informer.getStore().getByKey(name));
  }

  void nodeChanged(String node) {
    tell(nodeListeners, "node", node);
  }

  void namespaceChanged(String namespace) {
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
}
