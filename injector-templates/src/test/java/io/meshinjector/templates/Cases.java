package io.meshinjector.templates;

import static io.meshinjector.engine.decision.PathOption.CNI;
import static io.meshinjector.engine.decision.PathOption.INIT_LEGACY;
import static io.meshinjector.engine.decision.PathOption.INIT_NFT;
import static io.meshinjector.engine.decision.PathOption.INIT_PLAIN;
import static io.meshinjector.engine.decision.ProxyPlacement.CONTAINER;
import static io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.NodeConstraint;
import io.meshinjector.engine.decision.NodeRequirement;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.decision.Redirect;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every fixture with the plans it is rendered with: the golden, patch, PSA and idempotence cases.
 */
final class Cases {
  private Cases() {}

  /** Linkerd's fixtures often name no namespace, and its goldens then have no workload-ns. */
  static final String NO_NAMESPACE = "";

  /**
   * One rendering.
   *
   * @param name the golden file's base name
   */
  record Case(String name, String fixture, Plan plan) {
    List<JsonNode> inputs() {
      return Fixtures.loadTrees("fixtures/" + fixture + ".yaml");
    }

    Decision decision(String workload) {
      return Fixtures.inject(workload, plan);
    }

    /**
     * Whether the case injects its pods; the already injected fixture's pods carry the proxy or
     * linkerd-init, and are left as they are.
     */
    boolean injects() {
      return !fixture.equals("emojivoto-already-injected");
    }

    /** The pods of the input's templates, as the webhook would receive them. */
    List<Pod> pods() {
      List<Pod> out = new ArrayList<>();
      for (JsonNode in : inputs()) {
        for (WorkloadTemplates.PodTemplateRef ref :
            WorkloadTemplates.podTemplates(in, NO_NAMESPACE)) {
          out.add(Injected.bind(ref));
        }
      }
      return out;
    }

    List<String> workloads() {
      List<String> out = new ArrayList<>();
      for (JsonNode in : inputs()) {
        WorkloadTemplates.podTemplates(in, NO_NAMESPACE).forEach(r -> out.add(r.workload()));
      }
      return out;
    }

    boolean cni() {
      return plan.path().redirect() == Redirect.CNI;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static final NodeConstraint CNI_READY =
      new NodeConstraint(
          List.of(NodeRequirement.in("capability.mesh-injector.io/cni", List.of("ready"))));
  static final NodeConstraint NFT_AVAILABLE =
      new NodeConstraint(
          List.of(
              NodeRequirement.in(
                  "capability.mesh-injector.io/iptables-nft", List.of("available"))));

  static Stream<Case> all() {
    List<Case> cases = new ArrayList<>();
    // The whole matrix on one workload: layout x path x mode x await.
    for (ProxyPlacement proxy : ProxyPlacement.values()) {
      for (PathOption path : List.of(INIT_LEGACY, INIT_NFT, INIT_PLAIN, CNI)) {
        for (boolean await : List.of(true, false)) {
          String name =
              "emojivoto-"
                  + proxy.id()
                  + "-"
                  + path.toString().replace('/', '-')
                  + (await ? "-await" : "-no-await");
          cases.add(
              new Case(name, "emojivoto-deployment", new Plan(path, proxy, await, false, null)));
        }
      }
    }
    cases.add(c("multi-init-native-nft", "multi-init", INIT_NFT, NATIVE_SIDECAR, true, null));
    cases.add(c("multi-init-container-cni", "multi-init", CNI, CONTAINER, true, null));
    cases.add(
        c("native-sidecar-native-nft", "native-sidecar", INIT_NFT, NATIVE_SIDECAR, true, null));
    cases.add(
        c("native-sidecar-container-legacy", "native-sidecar", INIT_LEGACY, CONTAINER, true, null));
    cases.add(c("multi-container-native-cni", "multi-container", CNI, NATIVE_SIDECAR, true, null));
    cases.add(
        c("probes-named-numeric", "probes-named-numeric", INIT_NFT, NATIVE_SIDECAR, true, null));
    cases.add(c("tcp-probes-container-nft", "tcp-probes", INIT_NFT, CONTAINER, false, null));
    cases.add(c("cronjob-native-cni", "cronjob", CNI, NATIVE_SIDECAR, true, null));
    cases.add(
        c(
            "cronjob-v1beta1-container-nft",
            "emojivoto-cronjob-v1beta1",
            INIT_NFT,
            CONTAINER,
            true,
            null));
    cases.add(c("list-native-nft", "emojivoto-list", INIT_NFT, NATIVE_SIDECAR, true, null));
    cases.add(c("pod-container-legacy", "emojivoto-pod", INIT_LEGACY, CONTAINER, true, null));
    cases.add(c("restricted-native-cni", "restricted-app", CNI, NATIVE_SIDECAR, true, CNI_READY));
    cases.add(c("restricted-container-cni", "restricted-app", CNI, CONTAINER, false, CNI_READY));
    cases.add(c("affinity-native-cni", "affinity-pod", CNI, NATIVE_SIDECAR, true, CNI_READY));
    cases.add(
        c("affinity-container-nft", "affinity-pod", INIT_NFT, CONTAINER, true, NFT_AVAILABLE));
    cases.add(
        c("already-injected", "emojivoto-already-injected", INIT_NFT, NATIVE_SIDECAR, true, null));
    // Plans that redirect IPv6 too: linkerd-init without --ipv6=false, the validator on IPv6
    // addresses and the proxy listening on both families, as Linkerd with disableIPv6: false.
    for (Case v4 :
        List.of(
            c(
                "emojivoto-native-sidecar-init-nft-await",
                "emojivoto-deployment",
                INIT_NFT,
                NATIVE_SIDECAR,
                true,
                null),
            c("emojivoto-container-cni-await", "emojivoto-deployment", CNI, CONTAINER, true, null),
            c("pod-container-legacy", "emojivoto-pod", INIT_LEGACY, CONTAINER, true, null))) {
      Plan p = v4.plan();
      cases.add(
          new Case(
              v4.name() + "-ipv6",
              v4.fixture(),
              new Plan(p.path(), p.proxy(), p.proxyAwait(), true, p.nodeConstraint())));
    }
    return cases.stream();
  }

  private static Case c(
      String name,
      String fixture,
      PathOption path,
      ProxyPlacement proxy,
      boolean await,
      NodeConstraint constraint) {
    return new Case(name, fixture, new Plan(path, proxy, await, false, constraint));
  }
}
