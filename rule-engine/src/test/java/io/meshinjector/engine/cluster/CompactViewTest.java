package io.meshinjector.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.Source;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.config.CapabilitiesConfig;
import io.meshinjector.engine.config.CapabilityOverride;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.testing.K8s;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The view holds nodes as shapes shared between nodes (labels with the node's own name taken out,
 * taints, OS, kubelet): it must answer every placement question and give every node the verdicts
 * that a node-by-node reading of the same Nodes gives.
 */
class CompactViewTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  private static final int COUNT = 60;

  private static List<Node> cluster() {
    List<Node> out = new ArrayList<>();
    for (int i = 0; i < COUNT; i++) {
      String name = String.format("n-%02d", i);
      Node node =
          K8s.node(
              name,
              i % 3 == 0 ? K8s.RHEL8 : K8s.AL2023,
              i % 4 == 0 ? "v1.27.3" : "v1.31.0",
              "topology.kubernetes.io/zone=z" + i % 3,
              "pool=p" + i % 2,
              "rank=" + i % 7,
              // a label whose value is another node's name: held as a value, not as the name
              "peer=" + String.format("n-%02d", (i + 1) % COUNT),
              // a label whose value is the node's name under a second key
              "alias=" + name);
      out.add(i % 5 == 0 ? K8s.taint(node, "dedicated", "batch", "NoSchedule") : node);
    }
    return out;
  }

  private static NodeSelectorRequirement req(String key, String op, String... values) {
    return new NodeSelectorRequirement(key, op, List.of(values));
  }

  private static PodSpec affinity(NodeSelectorRequirement... requirements) {
    return new PodSpecBuilder()
        .withNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm()
        .withMatchExpressions(requirements)
        .endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .withTolerations(new Toleration("NoSchedule", "dedicated", "Exists", null, null))
        .build();
  }

  /** What each pod may land on, read node by node from the Node's own labels. */
  private static Map<PodSpec, Predicate<Map<String, String>>> questions() {
    Map<PodSpec, Predicate<Map<String, String>>> q = new LinkedHashMap<>();
    q.put(
        affinity(req("kubernetes.io/hostname", "In", "n-07", "n-31", "n-99")),
        l -> Set.of("n-07", "n-31").contains(l.get("kubernetes.io/hostname")));
    q.put(
        affinity(req("kubernetes.io/hostname", "NotIn", "n-07")),
        l -> !"n-07".equals(l.get("kubernetes.io/hostname")));
    q.put(affinity(req("peer", "In", "n-08")), l -> "n-08".equals(l.get("peer"))); // node n-07
    q.put(
        affinity(req("alias", "In", "n-08"), req("zone-less", "DoesNotExist")),
        l -> "n-08".equals(l.get("alias")));
    q.put(affinity(req("alias", "Exists")), l -> true);
    q.put(
        affinity(req("rank", "Gt", "4"), req("pool", "In", "p1")),
        l -> Integer.parseInt(l.get("rank")) > 4 && "p1".equals(l.get("pool")));
    q.put(
        affinity(req("topology.kubernetes.io/zone", "NotIn", "z1"), req("rank", "Lt", "2")),
        l ->
            !"z1".equals(l.get("topology.kubernetes.io/zone"))
                && Integer.parseInt(l.get("rank")) < 2);
    return q;
  }

  @Test
  void everyPlacementQuestionGetsTheNodesANodeByNodeReadingGives() {
    List<Node> nodes = cluster();
    NodeIndex index =
        InMemoryClusterView.of(ConfigLoader.defaults().engine().capabilities(), nodes).nodes(NOW);
    questions()
        .forEach(
            (pod, expected) -> {
              Set<String> want = new HashSet<>();
              for (Node n : nodes) {
                if (expected.test(n.getMetadata().getLabels())) {
                  want.add(n.getMetadata().getName());
                }
              }
              BitSet got = index.candidates(pod);
              assertThat(index.names(got, COUNT))
                  .as(pod.toString())
                  .containsExactlyInAnyOrderElementsOf(want);
            });
    // a pod without the toleration: the tainted fifth is out
    assertThat(index.candidates(new PodSpec()).cardinality()).isEqualTo(COUNT - COUNT / 5);
  }

  @Test
  void eachNodeReadsBackAsItWasAndSharesItsShapeWithItsPool() {
    List<Node> nodes = cluster();
    NodeIndex index =
        InMemoryClusterView.of(ConfigLoader.defaults().engine().capabilities(), nodes).nodes(NOW);
    for (Node n : nodes) {
      assertThat(index.facts(n.getMetadata().getName())).contains(NodeFacts.of(n));
    }
    // every label but the names repeats with the index modulo 2, 3, 4, 5, 7 and the peer's name:
    // the peer label makes each node's labels its own here, so shapes are nodes at most
    assertThat(distinctShapes(nodes)).isEqualTo(COUNT);
  }

  @Test
  void nodesThatDifferOnlyByTheirNamesShareOneShapeAndOneResolution() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      nodes.add(K8s.node("ip-" + i, K8s.RHEL8, "v1.31.0", "pool=p" + i % 2, "alias=ip-" + i));
    }
    NodeIndex index =
        InMemoryClusterView.of(ConfigLoader.defaults().engine().capabilities(), nodes).nodes(NOW);
    assertThat(distinctShapes(nodes)).isEqualTo(2);
    assertThat(index.capabilities("ip-0").orElseThrow())
        .isSameAs(index.capabilities("ip-198").orElseThrow());
    assertThat(index.facts("ip-7").orElseThrow().labels())
        .containsEntry("kubernetes.io/hostname", "ip-7")
        .containsEntry("alias", "ip-7");
  }

  @Test
  void anOverrideThatSelectsOnTheHostnameReachesThatNodeAlone() {
    CapabilitiesConfig defaults = ConfigLoader.defaults().engine().capabilities();
    CapabilitiesConfig config =
        new CapabilitiesConfig(
            defaults.probeTtl(),
            List.of(
                new CapabilityOverride(
                    Map.of("kubernetes.io/hostname", "n-03"),
                    Map.of(CapabilityKey.IPTABLES_NFT, Verdict.UNAVAILABLE))),
            defaults.assumeUnknown(),
            defaults.cniDaemonSet(),
            defaults.plainBackend());
    NodeIndex index = InMemoryClusterView.of(config, cluster()).nodes(NOW);
    for (String name : index.nodeNames()) {
      var verdict = index.capabilities(name).orElseThrow().get(CapabilityKey.IPTABLES_NFT);
      if (name.equals("n-03")) {
        assertThat(verdict.source()).isEqualTo(Source.OVERRIDE);
        assertThat(verdict.verdict()).isEqualTo(Verdict.UNAVAILABLE);
      } else {
        assertThat(verdict.source()).as(name).isNotEqualTo(Source.OVERRIDE);
      }
    }
  }

  /** Shapes as the view keys and interns them (NodeShapes.intern, NodeIndex.Entry). */
  private static long distinctShapes(List<Node> nodes) {
    return nodes.stream().map(n -> NodeShape.of(NodeFacts.of(n))).distinct().count();
  }
}
