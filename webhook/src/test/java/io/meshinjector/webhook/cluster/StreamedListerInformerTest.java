package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.webhook.lists.StreamedList;
import io.meshinjector.webhook.lists.Trimmed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An informer on {@link StreamedLister} through a watch that expires: the first list from the watch
 * cache, the watch from its resourceVersion, and after the API server's 410 a second list from
 * etcd, whose objects join the cache.
 */
@EnableKubernetesMockClient
class StreamedListerInformerTest {
  KubernetesMockServer server;
  KubernetesClient client;
  final ExecutorService executor = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  static NodeList nodeList(String resourceVersion, Node... nodes) {
    return new NodeListBuilder()
        .withNewMetadata()
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .withItems(nodes)
        .build();
  }

  /** A Node as the API server sends it, with what trimming drops. */
  static Node fullNode(String name) {
    return new NodeBuilder(node(name))
        .editMetadata()
        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
        .endMetadata()
        .withNewStatus()
        .withNewNodeInfo()
        .withOsImage("Red Hat Enterprise Linux 8.10 (Ootpa)")
        .endNodeInfo()
        .addNewImage()
        .withNames("registry/app@sha256:abc")
        .withSizeBytes(1L)
        .endImage()
        .endStatus()
        .build();
  }

  @SuppressWarnings("unchecked")
  private StreamedLister<Node> lister() {
    return new StreamedLister<>(
        client,
        "api/v1/nodes",
        StreamedLister.bound(Node.class, Trimmed::node),
        Trimmed::node,
        (ListerWatcher<Node, ?>) client.nodes(),
        executor,
        StreamedLister.Packer.none());
  }

  /**
   * The lists the server was asked for, in order, once {@code expected} of them have come or {@code
   * seconds} have passed.
   */
  private java.util.List<String> listsAsked(int expected, int seconds) throws InterruptedException {
    java.util.List<String> lists = new java.util.ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (lists.size() < expected && System.nanoTime() < deadline) {
      var request = server.takeRequest(100, TimeUnit.MILLISECONDS);
      if (request != null && !request.getPath().contains("watch=true")) {
        lists.add(request.getPath());
      }
    }
    return lists;
  }

  /** A watch that ends at once: the informer then re-lists from etcd (no resourceVersion). */
  private void watchFrom(String resourceVersion) {
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/nodes?allowWatchBookmarks=true&resourceVersion="
                + resourceVersion
                + "&timeoutSeconds=600&watch=true")
        .andUpgradeToWebSocket()
        .open()
        .done()
        .always();
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes")
        .andReturn(200, nodeList(resourceVersion))
        .always();
  }

  /** The first list from the watch cache, once. */
  private void firstListAnswers(NodeList list) {
    server.expect().get().withPath("/api/v1/nodes?resourceVersion=0").andReturn(200, list).once();
  }

  /** A lister whose first list was asked for early and reached the server, and its informer. */
  private SharedIndexInformer<Node> informerOfAnEarlyList() throws InterruptedException {
    StreamedLister<Node> lister = lister();
    lister.listNow();
    // the list is under way before the informer exists
    assertThat(listsAsked(1, 10)).containsExactly("/api/v1/nodes?resourceVersion=0");
    return new DefaultSharedIndexInformer<Node, StreamedLister.Items<Node>>(
        Node.class, lister, 0, executor);
  }

  @Test
  void aListAskedForEarlyIsTheInformersFirstListAndIsNotAskedForAgain() throws Exception {
    firstListAnswers(nodeList("10", fullNode("a")));
    watchFrom("10");
    SharedIndexInformer<Node> informer = informerOfAnEarlyList();
    try {
      informer.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(informer.getStore().listKeys()).containsExactly("a");
      assertThat(informer.getStore().getByKey("a").getStatus().getImages()).isEmpty();
      // the early list is handed to the informer as its first: no list is asked for again
      assertThat(listsAsked(1, 2))
          .as("lists from the watch cache asked for after the early one")
          .doesNotContain("/api/v1/nodes?resourceVersion=0");
    } finally {
      informer.stop();
    }
  }

  @Test
  void anEarlyListThatFailedIsTheInformersFailureToReportAndRetry() throws Exception {
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes?resourceVersion=0")
        // not retried by the HTTP client, as a 5xx would be: the chart's RBAC not bound yet
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage("nodes is forbidden: User cannot list resource \"nodes\"")
                .build())
        .once();
    firstListAnswers(nodeList("10", fullNode("a"), fullNode("b")));
    watchFrom("10");
    SharedIndexInformer<Node> informer = informerOfAnEarlyList();
    // as ClusterInformers does: a failed list is reported and tried again
    java.util.List<Throwable> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
    informer.exceptionHandler(
        (started, failure) -> {
          reported.add(failure);
          return true;
        });
    try {
      informer.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (informer.getStore().list().size() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("a", "b");
      assertThat(reported).singleElement().asString().contains("nodes is forbidden");
      assertThat(listsAsked(1, 10)).first().isEqualTo("/api/v1/nodes?resourceVersion=0");
    } finally {
      informer.stop();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void theFirstListsNodesAreNotMadeAgainFromTheCompactStoreAtItsEnd() throws Exception {
    Node[] listed = new Node[200];
    for (int i = 0; i < listed.length; i++) {
      listed[i] = fullNode("n" + i);
    }
    firstListAnswers(nodeList("10", listed));
    watchFrom("10");
    CompactNodeStore store = new CompactNodeStore();
    java.util.Set<Node> stored =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    store.listener(
        new CompactNodeStore.Listener() {
          @Override
          public void stored(Node node) {
            stored.add(node);
          }

          @Override
          public void removed(String name) {}
        });
    SharedIndexInformer<Node> informer =
        new DefaultSharedIndexInformer<Node, StreamedLister.Items<Node>>(
            Node.class,
            new StreamedLister<>(
                client,
                "api/v1/nodes",
                StreamedList.ItemReader.trimmedNodes(),
                Trimmed::node,
                (ListerWatcher<Node, ?>) client.nodes(),
                executor,
                store),
            0,
            executor);
    informer.itemStore(store);
    // what fabric8 hands its handlers for the first list: each node as it was stored, or, from a
    // store it takes for the full state, each node made again at the list's end (30,000 of them
    // queued at once ran a 78 MiB heap out of memory)
    java.util.List<Node> added = new java.util.concurrent.CopyOnWriteArrayList<>();
    informer.addEventHandler(
        new io.fabric8.kubernetes.client.informers.ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            added.add(node);
          }

          @Override
          public void onUpdate(Node before, Node after) {}

          @Override
          public void onDelete(Node node, boolean finalStateUnknown) {}
        });
    try {
      informer.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (added.size() < listed.length && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(added).hasSize(listed.length);
      assertThat(added).allMatch(stored::contains, "a node stored as listed, not made again");
    } finally {
      informer.stop();
    }
  }

  @Test
  void reListsFromEtcdAfterTheWatchExpiredAndKeepsWhatItFinds() throws Exception {
    firstListAnswers(nodeList("10", fullNode("a")));
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/nodes?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=600&watch=true")
        .andUpgradeToWebSocket()
        .open()
        .waitFor(50)
        .andEmit(
            new WatchEvent(
                new StatusBuilder()
                    .withCode(410)
                    .withReason("Expired")
                    .withMessage("too old resource version: 10 (15)")
                    .build(),
                "ERROR"))
        .done()
        .once();
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes")
        .andReturn(200, nodeList("20", fullNode("a"), fullNode("b")))
        .once();
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/nodes?allowWatchBookmarks=true&resourceVersion=20&timeoutSeconds=600&watch=true")
        .andUpgradeToWebSocket()
        .open()
        .waitFor(50)
        .andEmit(new WatchEvent(fullNode("c"), "ADDED"))
        .done()
        .always();
    SharedIndexInformer<Node> informer =
        new DefaultSharedIndexInformer<Node, StreamedLister.Items<Node>>(
            Node.class, lister(), 0, executor);

    try {
      informer.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (informer.getStore().list().size() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }

      assertThat(informer.getStore().listKeys()).containsExactlyInAnyOrder("a", "b", "c");
      // listed and watched alike, the cache holds them trimmed
      for (Node n : informer.getStore().list()) {
        assertThat(n.getMetadata().getAnnotations()).as(n.getMetadata().getName()).isEmpty();
        assertThat(n.getStatus().getImages()).as(n.getMetadata().getName()).isEmpty();
        assertThat(n.getStatus().getNodeInfo().getOsImage()).startsWith("Red Hat");
      }
    } finally {
      informer.stop();
    }
  }
}
