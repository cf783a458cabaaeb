package io.meshinjector.engine;

import static io.meshinjector.engine.testing.K8s.CENTOS7;
import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.enabled;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.pod;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.testing.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The constrain rule: the engine may pin a pod to some of its candidate nodes only when {@code
 * policy.mixedNodes} is {@code constrain} and {@code policy.publishLabels} is on. Each of the four
 * settings against each kind of pod that needs a constraint: a long-running pod on mixed paths, a
 * pod that runs to completion on mixed kubelets, and a pod asking for a native sidecar there. A
 * refusal's reason is pinned in full after the workload name, since {@code explain} and admission
 * warnings show it as it is.
 */
class ConstrainRuleTableTest {
  private static final Namespace SHOP = enabled("shop");
  private static final Node RHEL = node("rhel-1", RHEL8, "v1.31.0");
  private static final Node CENTOS = node("centos-1", CENTOS7, "v1.31.0");
  private static final Node NEW = node("new-1", RHEL8, "v1.31.0");
  private static final Node OLD = node("old-1", RHEL8, "v1.28.9-eks-036c24b");

  private static final String OLD_LACKS =
      "class 1 (1 node: old-1) has native-sidecar unsupported (inference: kubelet"
          + " v1.28.9-eks-036c24b)";

  private static final String MIXED_NODES_REJECT = "policy.mixedNodes is reject";
  private static final String NO_LABELS =
      "policy.publishLabels is off, so no capability label could pin the pod";

  /** The four settings, with the sentence saying why no constraint may be made, or null. */
  enum Setting {
    CONSTRAIN_PUBLISHED("constrain", true, null),
    CONSTRAIN_UNPUBLISHED("constrain", false, NO_LABELS),
    REJECT_PUBLISHED("reject", true, MIXED_NODES_REJECT),
    // mixedNodes: reject is named first: it forbids a constraint whatever labels exist
    REJECT_UNPUBLISHED("reject", false, MIXED_NODES_REJECT);

    final String config;
    final String whyNot;

    Setting(String mixedNodes, boolean publish, String whyNot) {
      this.config = "policy: {mixedNodes: " + mixedNodes + ", publishLabels: " + publish + "}";
      this.whyNot = whyNot;
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void constrainsOnlyWhenPolicyAndLabelsAllow(Scenario s) {
    s.verify();
  }

  static Stream<Scenario> rows() {
    List<Scenario> rows = new ArrayList<>();
    for (Setting setting : Setting.values()) {
      rows.add(mixedPaths(setting));
      rows.add(runsToCompletion(setting));
      rows.add(asksForNativeSidecar(setting, "Always"));
      rows.add(asksForNativeSidecar(setting, "Never"));
    }
    return rows.stream();
  }

  /** RHEL 8 has only nft, CentOS 7 only legacy: no path works on both. */
  private static Scenario mixedPaths(Setting setting) {
    String name = "mixed paths, long-running, " + setting;
    Scenario s =
        Scenario.of(name).cluster(SHOP, RHEL, CENTOS).config(setting.config).pod(pod("shop"));
    if (setting.whyNot == null) {
      return s.injects("init/nft native-sidecar await")
          .constraint("capability.mesh-injector.io/iptables-nft In [available, unknown]")
          .warning("pod constrained to the 1 of 2 candidate nodes where init/nft works")
          .trace("choice: init/nft works on the most candidates (1 of 2): constrained");
    }
    return s.refuses("mixed-nodes")
        .reason(
            "no redirect path works on every candidate node of "
                + name
                + " ("
                + setting.whyNot
                + "): class 0 (1 node: centos-1) lacks cni",
            "init/legacy (iptables-legacy unavailable (inference: osImage 'Red Hat Enterprise"
                + " Linux 8.10 (Ootpa)')). Fix: install the mesh CNI plugin")
        .trace("choice: mixed node classes refused: " + setting.whyNot)
        .completion(null);
  }

  /** Both nodes run nft; only new-1's kubelet runs native sidecars. */
  private static Scenario runsToCompletion(Setting setting) {
    String name = "mixed kubelets, restartPolicy Never, " + setting;
    Scenario s =
        Scenario.of(name)
            .cluster(SHOP, NEW, OLD)
            .config(setting.config)
            .pod(job("Never", Map.of()));
    if (setting.whyNot == null) {
      return s.injects("init/nft native-sidecar await")
          .constraint("capability.mesh-injector.io/native-sidecar In [supported]")
          .warning("pod constrained to nodes that run native sidecars, as it runs to completion")
          .completion("constrained");
    }
    return s.refuses("mixed-nodes")
        .reason(
            name
                + " runs to completion (restartPolicy: Never), so its proxy must be a native"
                + " sidecar, but not every candidate node runs native sidecars (kubelet >= 1.29)"
                + " and "
                + setting.whyNot
                + ": "
                + OLD_LACKS
                + ". Fix: upgrade these nodes' kubelet to 1.29 or later, or keep the pod off them"
                + " (nodeSelector or node affinity), or set policy.mixedNodes: constrain with"
                + " policy.publishLabels: true")
        .completion("mixed-nodes")
        .trace("completion: mixed native-sidecar support refused: " + setting.whyNot);
  }

  /** The pod's own annotation asks for a native sidecar on mixed kubelets. */
  private static Scenario asksForNativeSidecar(Setting setting, String restart) {
    String name =
        "mixed kubelets, native-sidecar: enabled, restartPolicy " + restart + ", " + setting;
    Scenario s =
        Scenario.of(name)
            .cluster(SHOP, NEW, OLD)
            .config(setting.config)
            .pod(job(restart, Map.of("mesh-injector.io/native-sidecar", "enabled")));
    boolean completes = !restart.equals("Always");
    if (setting.whyNot == null) {
      return s.injects("init/nft native-sidecar await")
          .constraint("capability.mesh-injector.io/native-sidecar In [supported]")
          .completion(completes ? "constrained" : null)
          .warning(
              completes
                  ? "pod constrained to nodes that run native sidecars, as it runs to completion: "
                      + OLD_LACKS
                  : "pod constrained to nodes that run native sidecars: " + OLD_LACKS);
    }
    return s.refuses("mixed-nodes")
        .reason(
            "mesh-injector.io/native-sidecar: enabled, but not every candidate node of "
                + name
                + " runs native sidecars (kubelet >= 1.29): "
                + OLD_LACKS)
        // the annotation, not the policy, is what the pod is refused for
        .reasonOmits(MIXED_NODES_REJECT, NO_LABELS)
        .completion(completes ? "mixed-nodes" : null);
  }

  private static Pod job(String restart, Map<String, String> annotations) {
    return pod("shop", annotations).editSpec().withRestartPolicy(restart).endSpec().build();
  }
}
