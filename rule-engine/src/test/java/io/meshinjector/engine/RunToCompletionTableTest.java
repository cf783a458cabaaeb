package io.meshinjector.engine;

import static io.meshinjector.engine.testing.K8s.CENTOS7;
import static io.meshinjector.engine.testing.K8s.RHEL8;
import static io.meshinjector.engine.testing.K8s.UBUNTU;
import static io.meshinjector.engine.testing.K8s.enabled;
import static io.meshinjector.engine.testing.K8s.namespace;
import static io.meshinjector.engine.testing.K8s.node;
import static io.meshinjector.engine.testing.K8s.pod;
import static io.meshinjector.engine.testing.K8s.probe;
import static io.meshinjector.engine.testing.Scenario.NOW;

import io.fabric8.kubernetes.api.model.HasMetadata;
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
 * Pods that run to completion ({@code restartPolicy} Never or OnFailure) need a proxy that ends
 * when the app ends: every restart policy × native-sidecar support among the candidates (all, some,
 * none, unknown) × {@code policy.runToCompletion}, with the outcome and constraint each must give,
 * then the rows around it (the pod's own annotation, mixedNodes, publishLabels, a path constraint,
 * another path's nodes).
 */
class RunToCompletionTableTest {
  private static final Namespace SHOP = enabled("shop");
  private static final String NATIVE_LABEL = "capability.mesh-injector.io/native-sidecar";
  private static final String NATIVE_ONLY = NATIVE_LABEL + " In [supported]";

  /** Native-sidecar support among the candidates; RHEL 8 everywhere, so init/nft works on all. */
  enum Support {
    ALL(node("new-1", RHEL8, "v1.31.0"), node("new-2", RHEL8, "v1.29.3-gke.1093000")),
    SOME(node("new-1", RHEL8, "v1.31.0"), node("old-1", RHEL8, "v1.28.9-eks-036c24b")),
    NONE(node("old-1", RHEL8, "v1.28.9-eks-036c24b"), node("old-2", RHEL8, "v1.27.16")),
    /** No kubelet version to infer from and no probe: unknown, counted as unsupported. */
    UNKNOWN(node("odd-1", RHEL8, "garbage"), node("odd-2", RHEL8, "garbage"));

    final List<Node> nodes;

    Support(Node... nodes) {
      this.nodes = List.of(nodes);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyCombination")
  void restartPolicyBySupportByPolicy(Scenario s) {
    s.verify();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("aroundTheRule")
  void aroundTheRule(Scenario s) {
    s.verify();
  }

  static Stream<Scenario> everyCombination() {
    List<Scenario> rows = new ArrayList<>();
    for (String restart : List.of("Always", "Never", "OnFailure")) {
      for (Support support : Support.values()) {
        for (String policy : List.of("reject", "skip", "inject")) {
          Scenario s =
              Scenario.of(restart + " × " + support + " × runToCompletion " + policy)
                  .cluster(objects(support.nodes))
                  .config("policy: {runToCompletion: " + policy + "}")
                  .pod(job(restart, Map.of()));
          rows.add(expect(s, restart, support, policy));
        }
      }
    }
    return rows.stream();
  }

  /** The expected row, written out case by case rather than computed the engine's way. */
  private static Scenario expect(Scenario s, String restart, Support support, String policy) {
    if (restart.equals("Always")) {
      // long-running pods: as before this rule existed, whatever the policy says
      s.completion(null).traceOmits("completion:");
      return switch (support) {
        case ALL -> s.injects("init/nft native-sidecar await").constraint(null).noWarnings();
        case SOME, NONE, UNKNOWN ->
            s.injects("init/nft container await").constraint(null).noWarnings();
      };
    }
    s.trace("completion: restartPolicy " + restart + ": the pod runs to completion");
    return switch (support) {
      case ALL ->
          s.injects("init/nft native-sidecar await")
              .constraint(null)
              .completion("native-sidecar")
              .noWarnings();
      case SOME ->
          s.injects("init/nft native-sidecar await")
              .constraint(NATIVE_ONLY)
              .completion("constrained")
              .warning(
                  "pod constrained to nodes that run native sidecars, as it runs to completion")
              .warning("old-1", "native-sidecar unsupported");
      case NONE -> none(s, restart, policy, "old-1", "native-sidecar unsupported (inference");
      case UNKNOWN -> none(s, restart, policy, "odd-1", "native-sidecar unknown");
    };
  }

  private static Scenario none(
      Scenario s, String restart, String policy, String node, String verdict) {
    String[] why = {"restartPolicy: " + restart, node, verdict, "kubelet is 1.29 or later"};
    return switch (policy) {
      case "reject" ->
          s.refuses("run-to-completion")
              .reason(why)
              .reason("policy.runToCompletion: inject")
              .completion("refused");
      case "skip" ->
          s.skips("run-to-completion")
              .reason(why)
              .warning("admitted without injection (policy.runToCompletion: skip)")
              .completion("skipped");
      case "inject" ->
          s.injects("init/nft container await")
              .constraint(null)
              .warning(why)
              .warning("regular container (policy.runToCompletion: inject)")
              .completion("container");
      default -> throw new IllegalArgumentException(policy);
    };
  }

  static Stream<Scenario> aroundTheRule() {
    Node new1 = node("new-1", RHEL8, "v1.31.0");
    Node old1 = node("old-1", RHEL8, "v1.28.9-eks-036c24b");
    Node old2 = node("old-2", RHEL8, "v1.27.16");
    Node centosNew = node("centos-new", CENTOS7, "v1.31.0");
    return Stream.of(
        Scenario.of("restartPolicy absent means Always: regular container on old kubelets")
            .cluster(objects(List.of(new1, old1)))
            .pod(job(null, Map.of()))
            .injects("init/nft container await")
            .completion(null),
        Scenario.of("default policy is reject")
            .cluster(objects(List.of(old1, old2)))
            .pod(job("Never", Map.of()))
            .refuses("run-to-completion")
            .reason("runs to completion (restartPolicy: Never)"),
        Scenario.of("native-sidecar: disabled on a Job counts as no native node: reject")
            .cluster(objects(List.of(new1)))
            .pod(job("Never", Map.of("mesh-injector.io/native-sidecar", "disabled")))
            .refuses("run-to-completion")
            .reason("it says mesh-injector.io/native-sidecar: disabled", "remove the annotation")
            .completion("refused"),
        Scenario.of("native-sidecar: disabled on a Job, skip")
            .cluster(objects(List.of(new1)))
            .config("policy: {runToCompletion: skip}")
            .pod(job("OnFailure", Map.of("mesh-injector.io/native-sidecar", "disabled")))
            .skips("run-to-completion")
            .warning("policy.runToCompletion: skip")
            .completion("skipped"),
        Scenario.of("native-sidecar: disabled on a Job, inject: a regular container")
            .cluster(objects(List.of(new1)))
            .config("policy: {runToCompletion: inject}")
            .pod(job("Never", Map.of("mesh-injector.io/native-sidecar", "disabled")))
            .injects("init/nft container await")
            .constraint(null)
            .warning("mesh-injector.io/native-sidecar: disabled", "policy.runToCompletion: inject")
            .completion("container"),
        Scenario.of("native-sidecar: disabled on a long-running pod: a regular container, no rule")
            .cluster(objects(List.of(new1)))
            .pod(job("Always", Map.of("mesh-injector.io/native-sidecar", "disabled")))
            .injects("init/nft container await")
            .completion(null)
            .noWarnings(),
        Scenario.of("unknown kubelets counted as supported: a native sidecar, with a warning")
            .cluster(objects(Support.UNKNOWN.nodes))
            .config("capabilities: {assumeUnknown: {nativeSidecar: supported}}")
            .pod(job("Never", Map.of()))
            .injects("init/nft native-sidecar await")
            .constraint(null)
            .completion("native-sidecar")
            .warning("native-sidecar is unknown", "assumed supported"),
        Scenario.of("some, unknown assumed supported: the constraint also takes unknown")
            .cluster(objects(List.of(node("odd-1", RHEL8, "garbage"), old1)))
            .config("capabilities: {assumeUnknown: {nativeSidecar: supported}}")
            .pod(job("Never", Map.of()))
            .injects("init/nft native-sidecar await")
            .constraint(NATIVE_LABEL + " In [supported, unknown]")
            .completion("constrained"),
        Scenario.of("some, mixedNodes reject: refused as mixed paths are")
            .cluster(objects(List.of(new1, old1)))
            .config("policy: {mixedNodes: reject}")
            .pod(job("Never", Map.of()))
            .refuses("mixed-nodes")
            .reason("runs to completion", "policy.mixedNodes is reject", "old-1")
            .reasonOmits("new-1")
            .completion("mixed-nodes"),
        Scenario.of("some, publishLabels off: refused, no label could pin the pod")
            .cluster(objects(List.of(new1, old1)))
            .config("policy: {publishLabels: false}")
            .pod(job("OnFailure", Map.of()))
            .refuses("mixed-nodes")
            .reason("runs to completion", "policy.publishLabels is off")
            .completion("mixed-nodes"),
        Scenario.of("some, mixedNodes reject, policy inject: still refused (some nodes would do)")
            .cluster(objects(List.of(new1, old1)))
            .config("policy: {mixedNodes: reject, runToCompletion: inject}")
            .pod(job("Never", Map.of()))
            .refuses("mixed-nodes")
            .completion("mixed-nodes"),
        Scenario.of("path constraint and native constraint together")
            .cluster(objects(List.of(new1, old1, centosNew)))
            .pod(job("Never", Map.of()))
            .injects("init/nft native-sidecar await")
            .constraint(
                "capability.mesh-injector.io/iptables-nft In [available, unknown], " + NATIVE_ONLY)
            .completion("constrained"),
        Scenario.of("path constraint alone keeps the Job on native nodes: no extra constraint")
            .cluster(objects(List.of(new1, node("new-2", RHEL8, "v1.30.0"), centosOld())))
            .pod(job("Never", Map.of()))
            .injects("init/nft native-sidecar await")
            .constraint("capability.mesh-injector.io/iptables-nft In [available, unknown]")
            .completion("native-sidecar"),
        Scenario.of("the chosen path's nodes lack native sidecars: chosen again on the others")
            .cluster(objects(List.of(old1, old2, centosNew)))
            .pod(job("Never", Map.of()))
            .injects("init/legacy native-sidecar await")
            .constraint(NATIVE_ONLY)
            .trace("no candidate where init/nft works runs native sidecars", "choosing again")
            .warning("as it runs to completion", "old-1")
            .warningOmits("pod constrained to the 2 of 3")
            .completion("constrained"),
        Scenario.of("chosen again: the path is constrained too where a native node lacks it")
            .cluster(objects(List.of(old1, old2, centosNew, node("ubuntu-new", UBUNTU, "v1.31.0"))))
            .config("capabilities: {assumeUnknown: {iptables: not-viable}}")
            .pod(job("Never", Map.of()))
            .injects("init/legacy native-sidecar await")
            .constraint(
                "capability.mesh-injector.io/iptables-legacy In [available], " + NATIVE_ONLY)
            .completion("constrained"),
        Scenario.of("the chosen path's nodes lack native sidecars, long-running: as before")
            .cluster(objects(List.of(old1, old2, centosNew)))
            .pod(job("Always", Map.of()))
            .injects("init/nft container await")
            .constraint("capability.mesh-injector.io/iptables-nft In [available, unknown]")
            .completion(null),
        Scenario.of("the only native node has no working path: the policy decides, naming both")
            .cluster(
                objects(
                    List.of(old1, new1),
                    probe(
                        "new-1",
                        NOW,
                        Map.of(
                            "iptables-legacy", "unavailable",
                            "iptables-nft", "unavailable",
                            "cni", "absent"),
                        Map.of())))
            .pod(job("Never", Map.of()))
            .refuses("run-to-completion")
            .reason("old-1", "native-sidecar unsupported", "new-1", "iptables-nft unavailable")
            .completion("refused"),
        Scenario.of("native-sidecar: enabled on a Job where no node has it: the annotation's rule")
            .cluster(objects(List.of(old1, old2)))
            .config("policy: {runToCompletion: inject}")
            .pod(job("Never", Map.of("mesh-injector.io/native-sidecar", "enabled")))
            .refuses("no-viable-path")
            .reason("mesh-injector.io/native-sidecar: enabled")
            .completion("refused"),
        Scenario.of("native-sidecar: enabled on a Job on mixed kubelets: constrained")
            .cluster(objects(List.of(new1, old1)))
            .pod(job("Never", Map.of("mesh-injector.io/native-sidecar", "enabled")))
            .injects("init/nft native-sidecar await")
            .constraint(NATIVE_ONLY)
            .completion("constrained"),
        Scenario.of("no nodes known: an unknown node, unsupported by default: policy decides")
            .cluster(SHOP)
            .config("policy: {runToCompletion: inject}")
            .pod(job("Never", Map.of()))
            .injects("init/nft container await")
            .warning("the cluster view has no nodes")
            .completion("container"),
        Scenario.of("not enabled: the rule never applies")
            .cluster(notEnabled(), old1)
            .pod(job("Never", Map.of()))
            .skips("not-enabled")
            .completion(null));
  }

  private static Node centosOld() {
    return node("centos-old", CENTOS7, "v1.27.16");
  }

  private static Namespace notEnabled() {
    return namespace("shop", Map.of(), Map.of());
  }

  private static HasMetadata[] objects(List<Node> nodes, HasMetadata... more) {
    List<HasMetadata> all = new ArrayList<>();
    all.add(SHOP);
    all.addAll(nodes);
    all.addAll(List.of(more));
    return all.toArray(HasMetadata[]::new);
  }

  /** A Job's pod in shop; {@code restart} null leaves restartPolicy unset. */
  private static Pod job(String restart, Map<String, String> annotations) {
    return pod("shop", annotations).editSpec().withRestartPolicy(restart).endSpec().build();
  }
}
