package io.meshinjector.engine.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.check.ProxyDrift.Baseline;
import io.meshinjector.engine.check.ProxyDrift.DataPlanePod;
import io.meshinjector.engine.check.ProxyDrift.Report;
import io.meshinjector.engine.check.ProxyDrift.Workload;
import io.meshinjector.engine.decision.Annotations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyDriftTest {
  static final String PIN = "config.linkerd.io/proxy-version";
  static final String IMAGE_PIN = "sidecar.istio.io/proxyImage";
  static final Baseline LINKERD =
      new Baseline("v2", "sha256:new", "linkerd-proxy", List.of(PIN), List.of());
  static final Baseline ISTIO =
      new Baseline("1.28.0", "sha256:new", "istio-proxy", List.of(), List.of(IMAGE_PIN));

  static Pod pod(String ns, String name, String owner, String ownerName, Map<String, String> ann) {
    Map<String, String> a = new HashMap<>(ann);
    if (!a.isEmpty()) {
      // an empty map stands for a pod that was not injected
      a.putIfAbsent(Annotations.DECISION, "init/nft native-sidecar await");
    }
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .withAnnotations(a)
            .endMetadata()
            .withNewSpec()
            .addNewInitContainer()
            .withName("linkerd-proxy")
            .withImage("cr.l5d.io/linkerd/proxy:" + a.get(Annotations.LINKERD_PROXY_VERSION))
            .endInitContainer()
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec();
    if (owner != null) {
      String hash = "7d9c5f";
      b.editMetadata()
          .addToLabels("pod-template-hash", hash)
          .addNewOwnerReference()
          .withKind(owner)
          .withName(owner.equals("ReplicaSet") ? ownerName + "-" + hash : ownerName)
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    return b.build();
  }

  static Map<String, String> linkerd(String version, String digest) {
    Map<String, String> a = new HashMap<>();
    a.put(Annotations.LINKERD_PROXY_VERSION, version);
    if (digest != null) {
      a.put(Annotations.CONFIG_DIGEST, digest);
    }
    return a;
  }

  static Report assess(Baseline b, Map<String, Map<String, String>> ns, Pod... pods) {
    List<DataPlanePod> read = new ArrayList<>();
    for (Pod p : pods) {
      ProxyDrift.of(p, b).ifPresent(read::add);
    }
    return ProxyDrift.assess(read, b, n -> ns.getOrDefault(n, Map.of()));
  }

  @Test
  void theOwnerIsTheWorkloadThatRollsOut() {
    assertThat(ProxyDrift.workload(pod("shop", "web-1", "ReplicaSet", "web", Map.of())))
        .isEqualTo(new Workload("Deployment", "web"));
    assertThat(ProxyDrift.workload(pod("shop", "db-0", "StatefulSet", "db", Map.of())))
        .isEqualTo(new Workload("StatefulSet", "db"));
    assertThat(ProxyDrift.workload(pod("shop", "agent-x", "DaemonSet", "agent", Map.of())))
        .isEqualTo(new Workload("DaemonSet", "agent"));
    assertThat(ProxyDrift.workload(pod("shop", "batch-x", "Job", "batch", Map.of())))
        .isEqualTo(new Workload("Job", "batch"));
    assertThat(ProxyDrift.workload(pod("shop", "bare", null, null, Map.of())))
        .isEqualTo(new Workload("Pod", "bare"));
  }

  @Test
  void podsOnAnOldVersionOrConfigAreCountedPerNamespaceAndWorkloadWithTheirFix() {
    Report r =
        assess(
            LINKERD,
            Map.of(),
            pod("shop", "web-1", "ReplicaSet", "web", linkerd("v1", "sha256:old")),
            pod("shop", "web-2", "ReplicaSet", "web", linkerd("v1", "sha256:old")),
            pod("shop", "db-0", "StatefulSet", "db", linkerd("v2", "sha256:old")),
            pod("blog", "api-1", "ReplicaSet", "api", linkerd("v1", "sha256:new")),
            pod("blog", "ok-1", "ReplicaSet", "ok", linkerd("v2", "sha256:new")),
            pod("blog", "plain", null, null, Map.of()));
    assertThat(r.pods()).isEqualTo(5);
    // the drifted pods, counted through the workloads they are reported under
    assertThat(r.drifted()).extracting(ProxyDrift.Drifted::pods).containsExactlyInAnyOrder(2, 1, 1);
    List<CheckResult> lines = ProxyDrift.results(r, LINKERD);
    assertThat(lines).extracting(CheckResult::status).containsOnly("warn");
    assertThat(lines)
        .extracting(CheckResult::name)
        .containsExactly(
            "1 pods of Deployment/api in namespace blog run an outdated proxy",
            "2 pods of Deployment/web in namespace shop run an outdated proxy",
            "1 pods of StatefulSet/db in namespace shop run an outdated proxy");
    assertThat(lines.get(0).detail()).isEqualTo("proxy v1 where the release gives v2");
    assertThat(lines.get(2).detail()).contains("another config").doesNotContain("proxy v");
    assertThat(lines.get(1).detail()).contains("proxy v1 where the release gives v2", "config");
    assertThat(lines.get(1).hint()).isEqualTo("kubectl rollout restart deployment/web -n shop");
    assertThat(lines.get(2).hint()).isEqualTo("kubectl rollout restart statefulset/db -n shop");
  }

  @Test
  void aPinOnThePodOrItsNamespaceIsComparedWithWhatItAsks() {
    Map<String, String> pinned = linkerd("v0", "sha256:new");
    pinned.put(PIN, "v0");
    Map<String, String> pinChanged = linkerd("v0", "sha256:new");
    pinChanged.put(PIN, "v3");
    Report r =
        assess(
            LINKERD,
            Map.of("legacy", Map.of(PIN, "v0")),
            pod("shop", "pinned", "ReplicaSet", "pinned", pinned),
            pod("legacy", "ns-pinned", "ReplicaSet", "old", linkerd("v0", "sha256:new")),
            pod("shop", "moved", "ReplicaSet", "moved", pinChanged));
    assertThat(r.pinned()).isEqualTo(3);
    assertThat(r.drifted()).hasSize(1);
    assertThat(ProxyDrift.results(r, LINKERD).get(0).detail())
        .isEqualTo("proxy v0 where the release gives v3");
  }

  @Test
  void aPodBeingDeletedIsLeftOut() {
    Pod going = pod("shop", "web-1", "ReplicaSet", "web", linkerd("v1", "sha256:old"));
    going.getMetadata().setDeletionTimestamp("2026-11-27T10:00:00Z");
    assertThat(ProxyDrift.of(going, LINKERD)).isEmpty();
    going.getMetadata().setDeletionTimestamp(null);
    assertThat(ProxyDrift.of(going, LINKERD)).isPresent();
  }

  @Test
  void podsInjectedBeforeTheDigestAreUnknownNotDrift() {
    Report r =
        assess(
            LINKERD,
            Map.of(),
            pod("shop", "web-1", "ReplicaSet", "web", linkerd("v2", null)),
            pod("shop", "web-2", "ReplicaSet", "web", linkerd("v2", "sha256:new")));
    assertThat(r.drifted()).isEmpty();
    assertThat(r.unknown()).isEqualTo(1);
    CheckResult line = ProxyDrift.results(r, LINKERD).get(0);
    assertThat(line.status()).isEqualTo("pass");
    assertThat(line.detail()).contains("1 unknown");
    // an old version still shows without a digest
    Report old = assess(LINKERD, Map.of(), pod("shop", "w", null, null, linkerd("v1", null)));
    assertThat(old.drifted()).hasSize(1);
    assertThat(ProxyDrift.results(old, LINKERD).get(0).hint())
        .contains("delete it and create it again");
  }

  @Test
  void anIstioImagePinIsComparedWithTheImageTheProxyRuns() {
    Map<String, String> a = new HashMap<>();
    a.put(Annotations.PROXY_VERSION, "1.27.0");
    a.put(Annotations.CONFIG_DIGEST, "sha256:new");
    a.put(IMAGE_PIN, "example.com/istio/proxyv2:1.27.0");
    Pod asked =
        new PodBuilder(pod("shop", "a", "ReplicaSet", "a", a))
            .editSpec()
            .editInitContainer(0)
            .withName("istio-proxy")
            .withImage("example.com/istio/proxyv2:1.27.0")
            .endInitContainer()
            .endSpec()
            .build();
    Map<String, String> plain = new HashMap<>(a);
    plain.remove(IMAGE_PIN);
    Report r = assess(ISTIO, Map.of(), asked, pod("shop", "b", "Job", "batch", plain));
    assertThat(r.pinned()).isEqualTo(1);
    assertThat(r.drifted()).extracting(d -> d.workload().ref()).containsExactly("Job/batch");
    CheckResult line = ProxyDrift.results(r, ISTIO).get(0);
    assertThat(line.detail()).isEqualTo("proxy 1.27.0 where the release gives 1.28.0");
    assertThat(line.hint()).contains("the next Job gets the release's proxy");
  }

  @Test
  void manyWorkloadsAreSummedUpAfterTheCap() {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < NodeChecks.MAX_LINES + 5; i++) {
      pods.add(pod("shop", "w" + i, "DaemonSet", String.format("d%02d", i), linkerd("v1", null)));
    }
    Report r = assess(LINKERD, Map.of(), pods.toArray(Pod[]::new));
    List<CheckResult> lines = ProxyDrift.results(r, LINKERD);
    assertThat(lines).hasSize(NodeChecks.MAX_LINES + 1);
    assertThat(lines.get(NodeChecks.MAX_LINES).name())
        .isEqualTo("5 pods of 5 more workloads run an outdated proxy");
  }
}
