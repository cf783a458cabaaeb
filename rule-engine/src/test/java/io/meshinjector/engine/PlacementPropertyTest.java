package io.meshinjector.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.cluster.InMemoryClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.EngineConfig;
import io.meshinjector.engine.config.RunToCompletion;
import io.meshinjector.engine.decision.CompletionRule;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.NodeRequirement;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.engine.testing.K8s;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The engine's promise, over random clusters and pods: whenever it injects, the chosen path (and a
 * native sidecar, if chosen) works on every node on which the mutated pod may still be scheduled.
 * The scheduling rules and the viability oracle here are written afresh, not taken from the engine,
 * so a shared mistake cannot hide.
 */
class PlacementPropertyTest {
  private static final Instant NOW = Instant.parse("2026-11-20T10:30:00Z");
  private static final String[] OS = {
    K8s.RHEL8,
    K8s.CENTOS7,
    K8s.UBUNTU,
    K8s.AL2023,
    "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)",
    "Rocky Linux 9.3 (Blue Onyx)",
    "Oracle Linux Server 7.9",
    ""
  };
  private static final String[] KUBELET = {
    "v1.23.17", "v1.28.9-eks-036c24b", "v1.29.3-gke.1093000", "v1.30.4+k3s1", "v1.31.0", "garbage"
  };
  private static final String UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
  private static final String[] PATHS = {"cni", "init/nft", "init/legacy", "init/plain"};

  @Property(tries = 600)
  void injectedPathWorksWherever(@ForAll long seed) {
    Random r = new Random(seed);
    EngineConfig config = ConfigLoader.fromYaml(randomConfig(r)).engine();
    List<Node> nodes = new ArrayList<>();
    List<HasMetadata> objects = new ArrayList<>();
    objects.add(K8s.enabled("shop"));
    int n = 1 + r.nextInt(25);
    for (int i = 0; i < n; i++) {
      Node node = randomNode(r, "node-" + i);
      nodes.add(node);
      objects.add(node);
      if (r.nextInt(3) == 0) {
        objects.add(randomProbe(r, node.getMetadata().getName()));
      }
    }
    InMemoryClusterView view = InMemoryClusterView.of(config.capabilities(), objects);
    for (Node node : nodes) {
      if (r.nextBoolean()) {
        view.setCniReady(node.getMetadata().getName(), true);
      }
    }
    Pod pod = randomPod(r, nodes);
    Decision d =
        new RuleEngine(config, Clock.fixed(NOW, ZoneOffset.UTC)).decide("shop/Pod/p", pod, view);
    completionHolds(d, pod, config, "seed " + seed + "\n" + d.trace());
    if (!d.inject()) {
      return;
    }
    Plan plan = d.plan().orElseThrow();
    Pod mutated = withConstraint(pod, plan);
    NodeIndex index = view.nodes(NOW);
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      NodeCapabilities caps = index.capabilities(name).orElseThrow();
      Map<String, String> published = new HashMap<>(node.getMetadata().getLabels());
      published.putAll(caps.labels());
      if (!schedulable(mutated, node, published)) {
        continue;
      }
      String context = "seed " + seed + ", node " + name + ": " + caps.profile() + "\n" + d.trace();
      assertThat(pathWorks(plan, caps, config)).as(context).isTrue();
      if (plan.proxy() == ProxyPlacement.NATIVE_SIDECAR) {
        assertThat(
                works(
                    caps.verdict(CapabilityKey.NATIVE_SIDECAR),
                    Verdict.SUPPORTED,
                    config.capabilities().assumeUnknown().nativeSidecar()))
            .as(context)
            .isTrue();
      }
    }
  }

  /**
   * A pod that runs to completion gets a native sidecar, or what policy.runToCompletion says; the
   * rule never touches a long-running pod.
   */
  private static void completionHolds(Decision d, Pod pod, EngineConfig config, String context) {
    String restart = pod.getSpec().getRestartPolicy();
    boolean completes = "Never".equals(restart) || "OnFailure".equals(restart);
    RunToCompletion policy = config.policy().runToCompletion();
    if (!completes) {
      assertThat(d.completionRule()).as(context).isEmpty();
      assertThat(d.outcomeCode()).as(context).isNotEqualTo("run-to-completion");
      return;
    }
    if (d.outcomeCode().equals("run-to-completion")) {
      assertThat(d.rejected()).as(context).isEqualTo(policy == RunToCompletion.REJECT);
      assertThat(policy).as(context).isNotEqualTo(RunToCompletion.INJECT);
    }
    d.plan()
        .filter(p -> p.proxy() == ProxyPlacement.CONTAINER)
        .ifPresent(
            p -> {
              assertThat(policy).as(context).isEqualTo(RunToCompletion.INJECT);
              assertThat(d.completionRule()).as(context).contains(CompletionRule.CONTAINER);
            });
  }

  private static boolean pathWorks(Plan plan, NodeCapabilities caps, EngineConfig config) {
    boolean assumeIptables = config.capabilities().assumeUnknown().iptables();
    if (plan.path().redirect() == Redirect.CNI) {
      return works(
          caps.verdict(CapabilityKey.CNI),
          Verdict.READY,
          config.capabilities().assumeUnknown().cni());
    }
    CapabilityKey key =
        switch (plan.path().mode()) {
          case LEGACY -> CapabilityKey.IPTABLES_LEGACY;
          case NFT -> CapabilityKey.IPTABLES_NFT;
          case PLAIN ->
              config.capabilities().plainBackend().id().equals("legacy")
                  ? CapabilityKey.IPTABLES_LEGACY
                  : CapabilityKey.IPTABLES_NFT;
          case NFTABLES -> CapabilityKey.NFTABLES;
        };
    return works(caps.verdict(key), Verdict.AVAILABLE, assumeIptables);
  }

  private static boolean works(Verdict v, Verdict positive, boolean assumeUnknown) {
    return v == positive || (v == Verdict.UNKNOWN && assumeUnknown);
  }

  private static String randomConfig(Random r) {
    List<String> paths = new ArrayList<>(List.of(PATHS));
    Collections.shuffle(paths, r);
    List<String> preference = paths.subList(0, 1 + r.nextInt(paths.size()));
    return "policy:\n"
        + "  preference: "
        + preference
        + "\n"
        + "  mixedNodes: "
        + (r.nextBoolean() ? "constrain" : "reject")
        + "\n"
        + "  noViablePath: "
        + (r.nextBoolean() ? "reject" : "skip")
        + "\n"
        + "  pinCni: "
        + (r.nextBoolean() ? "always" : "when-mixed")
        + "\n"
        + "  runToCompletion: "
        + List.of("reject", "skip", "inject").get(r.nextInt(3))
        + "\n"
        + "capabilities:\n"
        + "  plainBackend: "
        + (r.nextBoolean() ? "nft" : "legacy")
        + "\n"
        + "  assumeUnknown:\n"
        + "    iptables: "
        + (r.nextBoolean() ? "viable" : "not-viable")
        + "\n"
        + "    cni: "
        + (r.nextBoolean() ? "ready" : "not-ready")
        + "\n"
        + "    nativeSidecar: "
        + (r.nextBoolean() ? "supported" : "unsupported")
        + "\n";
  }

  private static Node randomNode(Random r, String name) {
    List<String> labels = new ArrayList<>();
    labels.add("zone=" + "abc".charAt(r.nextInt(3)));
    labels.add("gen=" + (1 + r.nextInt(5)));
    if (r.nextBoolean()) {
      labels.add("pool=" + (r.nextBoolean() ? "x" : "y"));
    }
    Node node =
        K8s.node(
            name,
            OS[r.nextInt(OS.length)],
            KUBELET[r.nextInt(KUBELET.length)],
            labels.toArray(String[]::new));
    switch (r.nextInt(6)) {
      case 0 -> node = K8s.taint(node, "dedicated", "legacy", "NoSchedule");
      case 1 -> node = K8s.taint(node, "gpu", null, "NoExecute");
      case 2 -> node = K8s.taint(node, "soft", "x", "PreferNoSchedule");
      case 3 ->
          node =
              K8s.taint(
                  K8s.taint(node, "gpu", "a100", "NoExecute"), "dedicated", "legacy", "NoSchedule");
      default -> {}
    }
    if (r.nextInt(6) == 0) {
      node = K8s.cordon(node);
      // the node controller mirrors the cordon as a taint, but a view read from files may lack it
      if (r.nextBoolean()) {
        node = K8s.taint(node, UNSCHEDULABLE, null, "NoSchedule");
      }
    }
    return node;
  }

  private static HasMetadata randomProbe(Random r, String node) {
    Map<String, String> caps = new LinkedHashMap<>();
    for (CapabilityKey k :
        List.of(CapabilityKey.IPTABLES_LEGACY, CapabilityKey.IPTABLES_NFT, CapabilityKey.CNI)) {
      if (r.nextInt(4) > 0) {
        caps.put(k.id(), k.verdicts().get(r.nextInt(3)).id());
      }
    }
    Instant observed = r.nextInt(4) == 0 ? NOW.minus(Duration.ofHours(3)) : NOW.minusSeconds(60);
    return K8s.probe(node, observed, caps, Map.of());
  }

  private static Pod randomPod(Random r, List<Node> nodes) {
    Map<String, String> annotations = new LinkedHashMap<>();
    pick(r, annotations, "mesh-injector.io/redirect", "auto", "init", "cni");
    pick(r, annotations, "mesh-injector.io/iptables-mode", "auto", "legacy", "nft", "plain");
    pick(r, annotations, "mesh-injector.io/native-sidecar", "auto", "enabled", "disabled");
    PodBuilder b = K8s.pod("shop", annotations);
    // null: unset, which the API server defaults to Always
    b.editSpec()
        .withRestartPolicy(Arrays.asList(null, "Always", "Never", "OnFailure").get(r.nextInt(4)))
        .endSpec();
    if (r.nextInt(4) == 0) {
      b.editSpec().withNodeName(randomNodeName(r, nodes)).endSpec();
    }
    if (r.nextInt(4) == 0) {
      b.editSpec().withNodeSelector(Map.of("zone", "" + "abc".charAt(r.nextInt(3)))).endSpec();
    }
    if (r.nextBoolean()) {
      List<NodeSelectorTerm> terms = new ArrayList<>();
      for (int t = 1 + r.nextInt(3); t > 0; t--) {
        List<NodeSelectorRequirement> exprs = new ArrayList<>();
        for (int e = r.nextInt(4); e > 0; e--) {
          exprs.add(randomRequirement(r));
        }
        List<NodeSelectorRequirement> fields = new ArrayList<>();
        for (int f = r.nextInt(4) == 0 ? 1 + r.nextInt(2) : 0; f > 0; f--) {
          fields.add(
              K8s.req(
                  "metadata.name",
                  r.nextBoolean() ? "In" : "NotIn",
                  randomNodeName(r, nodes),
                  randomNodeName(r, nodes)));
        }
        terms.add(
            new NodeSelectorTermBuilder()
                .withMatchExpressions(exprs)
                .withMatchFields(fields)
                .build());
      }
      b.editSpec()
          .withNewAffinity()
          .withNewNodeAffinity()
          .withNewRequiredDuringSchedulingIgnoredDuringExecution()
          .withNodeSelectorTerms(terms)
          .endRequiredDuringSchedulingIgnoredDuringExecution()
          .endNodeAffinity()
          .endAffinity()
          .endSpec();
    }
    List<Toleration> tolerations = new ArrayList<>();
    for (int t = r.nextInt(4); t > 0; t--) {
      tolerations.add(
          switch (r.nextInt(9)) {
            case 0 -> K8s.tolerate("dedicated", "Equal", "legacy", "NoSchedule");
            case 1 -> K8s.tolerate("dedicated", null, "legacy", null);
            case 2 -> K8s.tolerate("dedicated", "Equal", "other", "NoSchedule");
            case 3 -> K8s.tolerate("gpu", "Exists", null, null);
            case 4 -> K8s.tolerate("gpu", "Equal", "a100", "NoExecute");
            case 5 -> K8s.tolerate("gpu", "Equal", "h100", "NoExecute");
            case 6 -> K8s.tolerate("gpu", "Equal", null, "NoExecute");
            case 7 -> K8s.tolerate(UNSCHEDULABLE, "Exists", null, "NoSchedule");
            default -> K8s.tolerate(null, "Exists", null, null);
          });
    }
    if (!tolerations.isEmpty()) {
      b.editSpec().withTolerations(tolerations).endSpec();
    }
    return b.build();
  }

  /** Mostly a node of the cluster; now and then one that does not exist (yet). */
  private static String randomNodeName(Random r, List<Node> nodes) {
    return r.nextInt(6) == 0
        ? "node-gone"
        : nodes.get(r.nextInt(nodes.size())).getMetadata().getName();
  }

  private static NodeSelectorRequirement randomRequirement(Random r) {
    return switch (r.nextInt(6)) {
      case 0 ->
          K8s.req("zone", "In", "" + "abc".charAt(r.nextInt(3)), "" + "abc".charAt(r.nextInt(3)));
      case 1 -> K8s.req("zone", "NotIn", "" + "abc".charAt(r.nextInt(3)));
      case 2 -> K8s.req("pool", "Exists");
      case 3 -> K8s.req("pool", "DoesNotExist");
      case 4 -> K8s.req("gen", "Gt", "" + r.nextInt(5));
      default -> K8s.req("gen", "Lt", "" + (1 + r.nextInt(5)));
    };
  }

  private static void pick(Random r, Map<String, String> a, String key, String... values) {
    if (r.nextInt(3) == 0) {
      a.put(key, values[r.nextInt(values.length)]);
    }
  }

  /**
   * The renderer's contract: the requirements are ANDed into every required term that has any; an
   * empty term matches no node, and adding requirements to it would make it match some.
   */
  private static Pod withConstraint(Pod pod, Plan plan) {
    if (plan.nodeConstraint() == null) {
      return pod;
    }
    List<NodeSelectorRequirement> added = new ArrayList<>();
    for (NodeRequirement req : plan.nodeConstraint().matchExpressions()) {
      added.add(new NodeSelectorRequirement(req.key(), req.operator(), req.values()));
    }
    List<NodeSelectorTerm> terms = new ArrayList<>();
    var aff = pod.getSpec().getAffinity();
    if (aff != null
        && aff.getNodeAffinity() != null
        && aff.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      for (NodeSelectorTerm t :
          aff.getNodeAffinity()
              .getRequiredDuringSchedulingIgnoredDuringExecution()
              .getNodeSelectorTerms()) {
        if (t.getMatchExpressions().isEmpty() && t.getMatchFields().isEmpty()) {
          terms.add(t);
          continue;
        }
        List<NodeSelectorRequirement> exprs = new ArrayList<>(t.getMatchExpressions());
        exprs.addAll(added);
        terms.add(new NodeSelectorTermBuilder(t).withMatchExpressions(exprs).build());
      }
    } else {
      terms.add(new NodeSelectorTermBuilder().withMatchExpressions(added).build());
    }
    return new PodBuilder(pod)
        .editSpec()
        .editOrNewAffinity()
        .editOrNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withNodeSelectorTerms(terms)
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .endSpec()
        .build();
  }

  /**
   * A naive, node-at-a-time reading of where the pod may run. Without {@code nodeName} the
   * scheduler decides: labels, affinity, and NoSchedule/NoExecute taints, a cordon counting as the
   * {@code unschedulable} taint. With {@code nodeName} the scheduler never sees the pod and the
   * kubelet admits it: it still checks the node selector and affinity, but of the taints only
   * NoExecute ones, which would evict the pod at once.
   */
  private static boolean schedulable(Pod pod, Node node, Map<String, String> labels) {
    String name = node.getMetadata().getName();
    var spec = pod.getSpec();
    boolean bound = spec.getNodeName() != null && !spec.getNodeName().isEmpty();
    if (bound && !spec.getNodeName().equals(name)) {
      return false;
    }
    if (spec.getNodeSelector() != null) {
      for (var e : spec.getNodeSelector().entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return false;
        }
      }
    }
    var aff = spec.getAffinity();
    if (aff != null
        && aff.getNodeAffinity() != null
        && aff.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      boolean any = false;
      for (NodeSelectorTerm t :
          aff.getNodeAffinity()
              .getRequiredDuringSchedulingIgnoredDuringExecution()
              .getNodeSelectorTerms()) {
        if (t.getMatchExpressions().isEmpty() && t.getMatchFields().isEmpty()) {
          continue;
        }
        boolean all = true;
        for (NodeSelectorRequirement q : t.getMatchExpressions()) {
          all &= matches(q, labels.get(q.getKey()));
        }
        for (NodeSelectorRequirement q : t.getMatchFields()) {
          all &=
              q.getOperator().equals("In")
                  ? q.getValues().contains(name)
                  : !q.getValues().contains(name);
        }
        any |= all;
      }
      if (!any) {
        return false;
      }
    }
    List<Taint> taints = new ArrayList<>();
    if (node.getSpec() != null && node.getSpec().getTaints() != null) {
      taints.addAll(node.getSpec().getTaints());
    }
    if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      taints.add(new Taint("NoSchedule", UNSCHEDULABLE, null, null));
    }
    List<Toleration> tolerations =
        spec.getTolerations() == null ? List.of() : spec.getTolerations();
    for (Taint taint : taints) {
      boolean binds =
          taint.getEffect().equals("NoExecute")
              || (!bound && taint.getEffect().equals("NoSchedule"));
      if (binds && tolerations.stream().noneMatch(tol -> tolerates(tol, taint))) {
        return false;
      }
    }
    return true;
  }

  private static boolean tolerates(Toleration tol, Taint taint) {
    if (tol.getEffect() != null && !tol.getEffect().equals(taint.getEffect())) {
      return false;
    }
    boolean exists = "Exists".equals(tol.getOperator());
    if (tol.getKey() == null) {
      return exists;
    }
    return tol.getKey().equals(taint.getKey())
        && (exists
            || Objects.toString(tol.getValue(), "").equals(Objects.toString(taint.getValue(), "")));
  }

  private static boolean matches(NodeSelectorRequirement q, String value) {
    return switch (q.getOperator()) {
      case "In" -> value != null && q.getValues().contains(value);
      case "NotIn" -> value == null || !q.getValues().contains(value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      case "Gt" -> value != null && Long.parseLong(value) > Long.parseLong(q.getValues().get(0));
      case "Lt" -> value != null && Long.parseLong(value) < Long.parseLong(q.getValues().get(0));
      default -> false;
    };
  }
}
