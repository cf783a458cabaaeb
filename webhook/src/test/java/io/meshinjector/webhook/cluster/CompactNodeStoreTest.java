package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.fabric8.kubernetes.client.informers.impl.cache.ProcessorStore;
import io.fabric8.kubernetes.client.informers.impl.cache.SharedProcessor;
import io.meshinjector.webhook.lists.Trimmed;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CompactNodeStoreTest {
  private static Node node(int i, String resourceVersion) {
    String name = "ip-10-0-" + i + ".internal";
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/hostname", name);
    labels.put("pool", "p" + i % 2);
    labels.put("capability.mesh-injector.io/cni", "ready");
    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withResourceVersion(resourceVersion)
            .withLabels(labels)
            .addToAnnotations("a", "b")
            .endMetadata()
            .withNewSpec()
            .withUnschedulable(i % 3 == 0 ? true : null)
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage("Amazon Linux 2023")
            .withKubeletVersion("v1.31.4")
            .withBootID("boot-" + i)
            .endNodeInfo()
            .addNewImage()
            .withNames("img-" + i)
            .endImage()
            .endStatus();
    if (i % 2 == 0) {
      b.editSpec()
          .addToTaints(
              new TaintBuilder()
                  .withKey("dedicated")
                  .withValue("x")
                  .withEffect("NoSchedule")
                  .build())
          .endSpec();
    }
    return b.build();
  }

  @Test
  void aPackedListKeepsOneTemplatePerDistinctShapePastThePoolsPruningSize() {
    CompactNodeStore store = new CompactNodeStore();
    // 400 nodes of 200 shapes (node k's, k < 200, under another name): more than twice the size
    // at which the pool is first pruned
    for (int i = 0; i < 400; i++) {
      Node n = node(i % 200, String.valueOf(1000 + i));
      n.getMetadata().setName("n-" + i);
      store.pack(Trimmed.node(n));
    }
    // the pool still knows every shape the packed list refers to, so each is held once
    assertThat(store.templates()).isEqualTo(200);
  }

  @Test
  void eachNodeReadsBackAsTheTrimmedNodeItWas() {
    CompactNodeStore store = new CompactNodeStore();
    for (int i = 0; i < 12; i++) {
      Node n = node(i, i == 5 ? "abc/5" : String.valueOf(1000 + i));
      Node trimmed = Trimmed.node(n);
      store.put(store.getKey(trimmed), trimmed);
      assertThat(store.get(n.getMetadata().getName())).isEqualTo(trimmed);
    }
    assertThat(store.size()).isEqualTo(12);
    assertThat(store.get("ip-10-0-5.internal").getMetadata().getResourceVersion())
        .isEqualTo("abc/5");
  }

  @Test
  void nodesOfOnePoolShareOneTemplateWhateverTheirNames() {
    CompactNodeStore store = new CompactNodeStore();
    for (int i = 0; i < 600; i++) {
      Node trimmed = Trimmed.node(node(i, "7" + i));
      store.put(store.getKey(trimmed), trimmed);
    }
    // pool (2) with taint (the same parity) times unschedulable (every third): 4 templates
    assertThat(store.templates()).isEqualTo(4);
  }

  @Test
  void theNodeControllersTaintTimesDoNotMakeATemplatePerNode() {
    CompactNodeStore store = new CompactNodeStore();
    for (int i = 0; i < 100; i++) {
      Node n = Trimmed.node(node(1, "5" + i));
      n.getMetadata().setName("n" + i);
      n.getSpec()
          .getTaints()
          .add(
              new TaintBuilder()
                  .withKey("node.kubernetes.io/unreachable")
                  .withEffect("NoExecute")
                  .withTimeAdded("2026-11-27T17:0" + i % 10 + ":00Z")
                  .build());
      store.put(store.getKey(n), n);
    }
    assertThat(store.templates()).isEqualTo(1);
    assertThat(store.get("n7").getSpec().getTaints())
        .extracting(t -> t.getKey() + ":" + t.getEffect() + ":" + t.getTimeAdded())
        .containsExactly("node.kubernetes.io/unreachable:NoExecute:null");
  }

  @Test
  void valuesCarryOnlyNameAndResourceVersionAndAListsEndStillRemovesWhatTheListLacks() {
    CompactNodeStore store = new CompactNodeStore();
    List<String> removed = new ArrayList<>();
    store.listener(
        new CompactNodeStore.Listener() {
          @Override
          public void stored(Node node) {}

          @Override
          public void removed(String name) {
            removed.add(name);
          }
        });
    for (int i = 0; i < 5; i++) {
      Node trimmed = Trimmed.node(node(i, "4" + i));
      store.put(store.getKey(trimmed), trimmed);
    }
    assertThat(store.values())
        .allSatisfy(
            n -> {
              assertThat(n.getSpec()).isNull();
              assertThat(n.getStatus()).isNull();
              assertThat(n.getMetadata().getLabels()).isNullOrEmpty();
            })
        .extracting(n -> n.getMetadata().getName() + "@" + n.getMetadata().getResourceVersion())
        .containsExactlyInAnyOrder(
            "ip-10-0-0.internal@40",
            "ip-10-0-1.internal@41",
            "ip-10-0-2.internal@42",
            "ip-10-0-3.internal@43",
            "ip-10-0-4.internal@44");

    // fabric8's own end of a list (what the informer runs after each LIST) over this store: it
    // reads values() for their keys, so two nodes the list no longer has must go, and only they
    CacheImpl<Node> cache = new CacheImpl<>();
    cache.setItemStore(store);
    ProcessorStore<Node> processor = new ProcessorStore<>(cache, new SharedProcessor<>());
    processor.syncList(Set.of("ip-10-0-0.internal", "ip-10-0-2.internal", "ip-10-0-4.internal"));
    assertThat(removed).containsExactlyInAnyOrder("ip-10-0-1.internal", "ip-10-0-3.internal");
    assertThat(store.keySet())
        .containsExactlyInAnyOrder(
            "ip-10-0-0.internal", "ip-10-0-2.internal", "ip-10-0-4.internal");
    assertThat(store.get("ip-10-0-2.internal").getMetadata().getLabels())
        .containsEntry("kubernetes.io/hostname", "ip-10-0-2.internal");
  }

  @Test
  void aListedNodeIsHeldPackedAndReadBackAsItWas() {
    CompactNodeStore store = new CompactNodeStore();
    Node trimmed = Trimmed.node(node(4, "99"));
    Object packed = store.pack(trimmed);
    assertThat(packed).isNotInstanceOf(Node.class);
    assertThat(store.unpack(packed)).isEqualTo(trimmed);
  }

  @Test
  void anUnpackedNodeIsStoredAsItWasAndAnotherNodeAfterItAsItIs() {
    CompactNodeStore store = new CompactNodeStore();
    Node listed = Trimmed.node(node(4, "99"));
    Node unpacked = store.unpack(store.pack(listed));
    store.put("ip-10-0-4.internal", unpacked);
    assertThat(store.get("ip-10-0-4.internal")).isEqualTo(listed);
    // stored right after an unpack, a node that is not the unpacked one is kept from itself
    Node watched = Trimmed.node(node(5, "100"));
    store.unpack(store.pack(Trimmed.node(node(6, "101"))));
    store.put("ip-10-0-5.internal", watched);
    assertThat(store.get("ip-10-0-5.internal")).isEqualTo(watched);
    assertThat(store.keySet())
        .containsExactlyInAnyOrder("ip-10-0-4.internal", "ip-10-0-5.internal");
  }

  @Test
  void putAndRemoveHandBackThePreviousNode() {
    CompactNodeStore store = new CompactNodeStore();
    Node first = Trimmed.node(node(1, "10"));
    Node second = Trimmed.node(node(1, "11"));
    assertThat(store.put("ip-10-0-1.internal", first)).isNull();
    assertThat(store.put("ip-10-0-1.internal", second)).isEqualTo(first);
    assertThat(store.remove("ip-10-0-1.internal")).isEqualTo(second);
    assertThat(store.get("ip-10-0-1.internal")).isNull();
    assertThat(store.keySet()).isEmpty();
  }
}
