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
  /**
   * Node {@code i} of two pools, each with pod CIDRs of its own: none (i % 4 == 0), IPv4, dual
   * stack, and a spelling the store keeps as text.
   */
  private static Node node(int i, String resourceVersion) {
    String name = "ip-10-0-" + i + ".internal";
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/hostname", name);
    labels.put("pool", "p" + i % 2);
    labels.put("kubernetes.io/os", "linux");
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
            .withPodCIDRs(podCidrs(i))
            .withPodCIDR(podCidrs(i).isEmpty() ? null : podCidrs(i).get(0))
            .endSpec()
            .withNewStatus()
            .withNewNodeInfo()
            .withOsImage("Amazon Linux 2023")
            .withKubeletVersion("v1.31.4")
            .withOperatingSystem("linux")
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

  private static List<String> podCidrs(int i) {
    String v4 = "10." + i / 256 + "." + i % 256 + ".0/24";
    return switch (i % 4) {
      case 0 -> List.of();
      case 1 -> List.of(v4);
      case 2 -> List.of(v4, "fd00:10:" + Integer.toHexString(i) + "::/64");
      default -> List.of("FD00:0:0:" + i + "::/64");
    };
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
      // resourceVersions that are not numbers, on a node without pod CIDRs (4) and with (5)
      Node n = node(i, i == 4 || i == 5 ? "abc/" + i : String.valueOf(1000 + i));
      Node trimmed = Trimmed.node(n);
      store.put(store.getKey(trimmed), trimmed);
      assertThat(store.get(n.getMetadata().getName())).isEqualTo(trimmed);
    }
    assertThat(store.size()).isEqualTo(12);
    assertThat(store.get("ip-10-0-4.internal").getMetadata().getResourceVersion())
        .isEqualTo("abc/4");
    assertThat(store.get("ip-10-0-5.internal").getMetadata().getResourceVersion())
        .isEqualTo("abc/5");
    assertThat(store.get("ip-10-0-5.internal").getSpec().getPodCIDRs())
        .containsExactly("10.0.5.0/24");
  }

  @Test
  void nodesOfOnePoolShareOneTemplateWhateverTheirNames() {
    CompactNodeStore store = new CompactNodeStore();
    for (int i = 0; i < 600; i++) {
      Node trimmed = Trimmed.node(node(i, "7" + i));
      store.put(store.getKey(trimmed), trimmed);
    }
    // pool (2) with taint (the same parity) times unschedulable (every third): 4 templates; the
    // pod CIDRs, each node's own, make none
    assertThat(store.templates()).isEqualTo(4);
  }

  @Test
  void eachNodeGetsBackItsOwnPodCidrsAndItsPoolsOperatingSystem() {
    CompactNodeStore store = new CompactNodeStore();
    for (int i = 0; i < 8; i++) {
      Node trimmed = Trimmed.node(node(i, "3" + i));
      store.put(store.getKey(trimmed), trimmed);
    }

    Node none = store.get("ip-10-0-4.internal");
    Node v4 = store.get("ip-10-0-5.internal");
    Node dual = store.get("ip-10-0-6.internal");
    Node text = store.get("ip-10-0-7.internal");
    assertThat(none.getSpec().getPodCIDR()).isNull();
    assertThat(none.getSpec().getPodCIDRs()).isEmpty();
    assertThat(v4.getSpec().getPodCIDR()).isEqualTo("10.0.5.0/24");
    assertThat(v4.getSpec().getPodCIDRs()).containsExactly("10.0.5.0/24");
    assertThat(dual.getSpec().getPodCIDR()).isEqualTo("10.0.6.0/24");
    assertThat(dual.getSpec().getPodCIDRs()).containsExactly("10.0.6.0/24", "fd00:10:6::/64");
    assertThat(text.getSpec().getPodCIDRs()).containsExactly("FD00:0:0:7::/64");
    assertThat(List.of(none, v4, dual, text))
        .extracting(n -> n.getStatus().getNodeInfo().getOperatingSystem())
        .containsOnly("linux");
    assertThat(dual.getMetadata().getLabels()).containsEntry("kubernetes.io/os", "linux");
  }

  @Test
  void aNodeWithoutPodCidrsOrNodeInfoOrSpecStaysWithoutThem() {
    CompactNodeStore store = new CompactNodeStore();
    Node bare = new NodeBuilder().withNewMetadata().withName("bare").endMetadata().build();
    Node explicitNull = Trimmed.node(node(1, "1"));
    explicitNull.getMetadata().setName("explicit-null");
    explicitNull.getSpec().setPodCIDR(null);
    explicitNull.getSpec().setPodCIDRs(null);
    explicitNull.getStatus().getNodeInfo().setOperatingSystem(null);
    store.put("bare", Trimmed.node(bare));
    store.put("explicit-null", explicitNull);

    assertThat(store.get("bare")).isEqualTo(Trimmed.node(bare));
    assertThat(store.get("bare").getSpec()).isNull();
    assertThat(store.get("bare").getStatus()).isNull();
    assertThat(store.get("explicit-null")).isEqualTo(explicitNull);
    assertThat(store.get("explicit-null").getSpec().getPodCIDRs()).isNull();
    assertThat(store.get("explicit-null").getStatus().getNodeInfo().getOperatingSystem()).isNull();
  }

  @Test
  void aNodeReadBackHasPodCidrListsOfItsOwn() {
    CompactNodeStore store = new CompactNodeStore();
    for (int i : new int[] {4, 6, 7}) {
      Node trimmed = Trimmed.node(node(i, "2" + i));
      store.put(store.getKey(trimmed), trimmed);
      // a reader that edits the Node it was given must not edit what the store holds
      store.get(store.getKey(trimmed)).getSpec().getPodCIDRs().add("10.99.0.0/16");

      assertThat(store.get(store.getKey(trimmed))).isEqualTo(trimmed);
    }
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
