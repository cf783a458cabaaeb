package io.meshinjector.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The chart's probe pieces as Kubernetes will receive them, rendered by Helm itself. */
class ProbeChartTest {
  static final String NS = Charts.NS;
  static final ObjectMapper YAML = Charts.YAML;

  /** The exact host paths the probe reads (HostProbe), and nothing else. */
  static final Set<String> PROBE_PATHS =
      Set.of(
          "/etc/os-release",
          "/proc/sys/kernel/osrelease",
          "/lib/modules",
          "/usr/sbin",
          "/sbin",
          "/etc/alternatives",
          "/etc/cni",
          "/opt/cni/bin",
          "/etc/containerd",
          "/etc/crio",
          "/etc/selinux");

  static List<JsonNode> render(UnaryOperator<TemplateCommand> options) throws IOException {
    return Charts.render(options);
  }

  static JsonNode find(List<JsonNode> docs, String kind, String name) {
    return Charts.find(docs, kind, name);
  }

  static List<String> names(List<JsonNode> docs) {
    return Charts.names(docs);
  }

  static List<String> texts(JsonNode array) {
    return Charts.texts(array);
  }

  @Test
  void defaultsRenderTheCrdTheProbeAndItsRbacButNoNodePrep() throws IOException {
    List<JsonNode> docs = render(t -> t);

    // the webhook's own objects are WebhookChartTest's; everything else is exactly this
    List<JsonNode> notWebhook =
        docs.stream()
            .filter(Charts.component("webhook").or(Charts.component("webhook-metrics")).negate())
            .toList();
    assertThat(names(notWebhook))
        .containsExactlyInAnyOrder(
            "CustomResourceDefinition/nodecapabilities.mesh-injector.io",
            "ServiceAccount/mi-mesh-injector-probe",
            "ClusterRole/mi-mesh-injector-probe",
            "ClusterRoleBinding/mi-mesh-injector-probe",
            "ValidatingAdmissionPolicy/mi-mesh-injector-node-capability-writers",
            "ValidatingAdmissionPolicyBinding/mi-mesh-injector-node-capability-writers",
            "ValidatingAdmissionPolicy/mi-mesh-injector-node-repair",
            "ValidatingAdmissionPolicyBinding/mi-mesh-injector-node-repair",
            "DaemonSet/mi-mesh-injector-probe");
  }

  @Test
  void crdMatchesTheArchitecture() throws IOException {
    JsonNode crd =
        find(render(t -> t), "CustomResourceDefinition", "nodecapabilities.mesh-injector.io");

    JsonNode spec = crd.path("spec");
    assertThat(spec.path("group").asText()).isEqualTo("mesh-injector.io");
    assertThat(spec.path("scope").asText()).isEqualTo("Cluster");
    assertThat(spec.path("names").path("kind").asText()).isEqualTo("NodeCapability");
    assertThat(crd.path("metadata").path("annotations").path("helm.sh/resource-policy").asText())
        .isEqualTo("keep");
    JsonNode v = spec.path("versions").get(0);
    assertThat(v.path("name").asText()).isEqualTo("v1alpha1");
    assertThat(v.path("storage").asBoolean()).isTrue();
    assertThat(v.path("subresources").has("status")).isTrue();
    assertThat(v.path("additionalPrinterColumns").findValuesAsText("name"))
        .containsExactly("Legacy", "NFT", "CNI", "Legacy6", "NFT6", "Nftables", "Observed", "Age");
    assertThat(v.path("additionalPrinterColumns").findValuesAsText("jsonPath"))
        .contains(
            ".status.capabilities.iptables-legacy",
            ".status.capabilities.iptables-nft",
            ".status.capabilities.cni",
            ".metadata.creationTimestamp");
    JsonNode status = v.at("/schema/openAPIV3Schema/properties/status/properties");
    assertThat(status.at("/observedAt/format").asText()).isEqualTo("date-time");
    JsonNode caps = status.at("/capabilities/properties");
    assertThat(texts(caps.at("/iptables-legacy/enum")))
        .containsExactly("available", "unavailable", "unknown");
    for (String key : List.of("iptables-nft", "ip6tables-legacy", "ip6tables-nft", "nftables")) {
      assertThat(texts(caps.at("/" + key + "/enum")))
          .as(key)
          .containsExactly("available", "unavailable", "unknown");
    }
    // the Node's own keys are not the probe's to write, so the schema does not name them
    assertThat(caps.has("ipv6-pods")).isFalse();
    assertThat(caps.has("os")).isFalse();
    assertThat(texts(caps.at("/cni/enum"))).containsExactly("ready", "absent", "unknown");
    assertThat(texts(caps.at("/native-sidecar/enum")))
        .containsExactly("supported", "unsupported", "unknown");
    JsonNode sources = status.at("/sources/properties");
    for (String key :
        List.of(
            "iptables-legacy", "iptables-nft", "ip6tables-legacy", "ip6tables-nft", "nftables")) {
      assertThat(texts(sources.at("/" + key + "/enum"))).as(key).containsExactly("active", "files");
    }
    assertThat(texts(sources.at("/cni/enum"))).containsExactly("active", "files");
    assertThat(status.at("/facts/additionalProperties/type").asText()).isEqualTo("string");
  }

  /**
   * Every key the probe writes is declared with exactly the verdicts the engine accepts for it, and
   * a source: the schema and CapabilityKey cannot drift apart as keys are added.
   */
  @Test
  void crdDeclaresEveryKeyTheProbeWritesWithTheEnginesVerdicts() throws IOException {
    JsonNode status =
        find(render(t -> t), "CustomResourceDefinition", "nodecapabilities.mesh-injector.io")
            .at("/spec/versions/0/schema/openAPIV3Schema/properties/status/properties");
    List<io.meshinjector.engine.capability.CapabilityKey> written = new ArrayList<>();
    for (io.meshinjector.engine.probe.ActiveCheck.Backend b :
        io.meshinjector.engine.probe.ActiveCheck.Backend.values()) {
      written.add(b.key());
    }
    written.add(io.meshinjector.engine.capability.CapabilityKey.CNI);
    for (var key : written) {
      assertThat(texts(status.at("/capabilities/properties/" + key.id() + "/enum")))
          .as(key.id())
          .containsExactlyElementsOf(
              key.verdicts().stream().map(io.meshinjector.engine.capability.Verdict::id).toList());
      assertThat(texts(status.at("/sources/properties/" + key.id() + "/enum")))
          .as(key.id())
          .containsExactly("active", "files");
    }
  }

  @Test
  void crdCanBeLeftToSomeoneElse() throws IOException {
    assertThat(names(render(t -> t.set("installCRDs", false))))
        .noneMatch(n -> n.startsWith("CustomResourceDefinition/"));
  }

  @Test
  void probeRunsEverywhereReadOnlyAndUnprivileged() throws IOException {
    JsonNode ds = find(render(t -> t), "DaemonSet", "mi-mesh-injector-probe");
    JsonNode pod = ds.at("/spec/template/spec");
    JsonNode container = pod.path("containers").get(0);

    assertThat(ds.at("/metadata/namespace").asText()).isEqualTo(NS);
    assertThat(YAML.convertValue(pod.path("tolerations"), List.class))
        .isEqualTo(List.of(Map.of("operator", "Exists")));
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo("mi-mesh-injector-probe");
    assertThat(pod.path("hostNetwork").asBoolean(false)).isFalse();
    assertThat(pod.path("hostPID").asBoolean(false)).isFalse();
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(container.at("/securityContext/privileged").asBoolean()).isFalse();
    assertThat(container.at("/securityContext/allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(texts(container.at("/securityContext/capabilities/drop"))).containsExactly("ALL");
    assertThat(container.at("/resources/limits/memory").asText()).isEqualTo("192Mi");
    assertThat(container.at("/resources/requests/cpu").asText()).isEqualTo("10m");

    List<String> command = new ArrayList<>(texts(container.path("command")));
    command.addAll(texts(container.path("args")));
    assertThat(String.join(" ", command))
        .startsWith("/app/bin/mesh-injector probe --node $(NODE_NAME) --host-root /host")
        .contains("--interval 5m")
        .contains("--cni-plugin linkerd-cni")
        .as("the active check is off by default")
        .doesNotContain("--active-check");
    assertThat(container.at("/securityContext/capabilities").has("add")).isFalse();
    JsonNode nodeName = container.path("env").get(0);
    assertThat(nodeName.path("name").asText()).isEqualTo("NODE_NAME");
    assertThat(nodeName.at("/valueFrom/fieldRef/fieldPath").asText()).isEqualTo("spec.nodeName");

    Map<String, String> hostPathByVolume = new java.util.HashMap<>();
    for (JsonNode vol : pod.path("volumes")) {
      if (vol.has("hostPath")) {
        hostPathByVolume.put(vol.path("name").asText(), vol.at("/hostPath/path").asText());
      }
    }
    assertThat(new TreeSet<>(hostPathByVolume.values())).isEqualTo(new TreeSet<>(PROBE_PATHS));
    Set<String> mounted = new TreeSet<>();
    for (JsonNode m : container.path("volumeMounts")) {
      String host = hostPathByVolume.get(m.path("name").asText());
      if (host != null) {
        assertThat(m.path("readOnly").asBoolean()).as(host + " is mounted read-only").isTrue();
        assertThat(m.path("mountPath").asText()).isEqualTo("/host" + host);
        mounted.add(host);
      }
    }
    assertThat(mounted).isEqualTo(new TreeSet<>(PROBE_PATHS));
  }

  /**
   * A kernel built without loadable modules has neither /proc/modules nor /lib/modules: no hostPath
   * type may then keep the probe pod from starting on the very nodes the active check is for.
   */
  @Test
  void startsOnANodeWhoseKernelHasNoLoadableModules() throws IOException {
    JsonNode pod =
        find(render(t -> t), "DaemonSet", "mi-mesh-injector-probe").at("/spec/template/spec");
    Map<String, String> typeByPath = new java.util.HashMap<>();
    for (JsonNode vol : pod.path("volumes")) {
      if (vol.has("hostPath")) {
        typeByPath.put(vol.at("/hostPath/path").asText(), vol.at("/hostPath/type").asText(""));
      }
    }

    assertThat(typeByPath).doesNotContainKey("/proc/modules");
    assertThat(typeByPath).containsEntry("/lib/modules", "DirectoryOrCreate");
  }

  @Test
  void activeCheckTurnedOnRunsAsRootWithTheCapabilitiesANetworkNamespaceNeedsAndNoMore()
      throws IOException {
    JsonNode ds =
        find(
            render(t -> t.set("probe.activeCheck.enabled", true)),
            "DaemonSet",
            "mi-mesh-injector-probe");
    JsonNode pod = ds.at("/spec/template/spec");
    JsonNode container = pod.path("containers").get(0);

    assertThat(texts(container.path("args"))).contains("--active-check");
    assertThat(pod.at("/securityContext/runAsUser").asInt(-1)).isZero();
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean(true)).isFalse();
    assertThat(pod.at("/securityContext/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
    assertThat(pod.path("hostNetwork").asBoolean(false))
        .as("the check makes its own namespace; the node's stays out of reach")
        .isFalse();
    JsonNode sc = container.path("securityContext");
    assertThat(sc.path("privileged").asBoolean(true)).isFalse();
    assertThat(sc.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(texts(sc.at("/capabilities/drop"))).containsExactly("ALL");
    assertThat(texts(sc.at("/capabilities/add")))
        .containsExactlyInAnyOrder("SYS_ADMIN", "NET_ADMIN", "NET_RAW");
    // the API server refuses allowPrivilegeEscalation: false next to SYS_ADMIN
    assertThat(sc.path("allowPrivilegeEscalation").asBoolean(false)).isTrue();
    // the same read-only host paths as the passive probe, and the writable /tmp for iptables' lock
    assertThat(container.path("volumeMounts").findValuesAsText("mountPath"))
        .contains("/tmp", "/host/lib/modules");
  }

  @Test
  void selinuxfsAndExtraPathsAreOptIn() throws IOException {
    JsonNode ds =
        find(
            render(
                t ->
                    t.set("probe.mountSelinuxfs", true)
                        .set("probe.extraHostPaths[0].path", "/usr/libexec/cni")),
            "DaemonSet",
            "mi-mesh-injector-probe");

    List<String> paths = ds.at("/spec/template/spec/volumes").findValuesAsText("path");
    assertThat(paths).contains("/sys/fs/selinux", "/usr/libexec/cni").containsAll(PROBE_PATHS);
    assertThat(ds.at("/spec/template/spec/containers/0/volumeMounts").findValuesAsText("mountPath"))
        .contains("/host/sys/fs/selinux", "/host/usr/libexec/cni");
  }

  @Test
  void rbacIsLimitedToNodeCapabilitiesWithRepairOff() throws IOException {
    // the repair's rights (pods, events) are RepairChartTest's
    List<JsonNode> docs = render(t -> t.set("probe.repair.mode", "off"));
    JsonNode role = find(docs, "ClusterRole", "mi-mesh-injector-probe");
    JsonNode binding = find(docs, "ClusterRoleBinding", "mi-mesh-injector-probe");

    // NodeCapabilityWriter: apply (patch, create on first write) of the object, then of its
    // status; get, create and the status update on its fallback path. No list or watch.
    Map<String, List<String>> verbs = new java.util.TreeMap<>();
    for (JsonNode rule : role.path("rules")) {
      assertThat(texts(rule.path("apiGroups"))).containsExactly("mesh-injector.io");
      assertThat(rule.has("resourceNames")).isFalse();
      for (String resource : texts(rule.path("resources"))) {
        assertThat(verbs).as("one rule per resource").doesNotContainKey(resource);
        verbs.put(resource, texts(rule.path("verbs")));
      }
    }
    assertThat(verbs).containsOnlyKeys("nodecapabilities", "nodecapabilities/status");
    assertThat(verbs.get("nodecapabilities")).containsExactlyInAnyOrder("get", "create", "patch");
    assertThat(verbs.get("nodecapabilities/status")).containsExactlyInAnyOrder("patch", "update");
    assertThat(binding.at("/roleRef/name").asText()).isEqualTo("mi-mesh-injector-probe");
    assertThat(binding.at("/subjects/0/name").asText()).isEqualTo("mi-mesh-injector-probe");
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NS);
  }

  @Test
  void nodePrepLoadsTheChosenModeModulesPrivileged() throws IOException {
    JsonNode legacy =
        find(
            render(t -> t.set("nodePrep.enabled", true)),
            "DaemonSet",
            "mi-mesh-injector-node-prep");
    JsonNode nft =
        find(
            render(t -> t.set("nodePrep.enabled", true).set("nodePrep.mode", "nft")),
            "DaemonSet",
            "mi-mesh-injector-node-prep");

    JsonNode init = legacy.at("/spec/template/spec/initContainers/0");
    assertThat(init.at("/securityContext/privileged").asBoolean()).isTrue();
    assertThat(init.at("/volumeMounts/0/mountPath").asText()).isEqualTo("/host");
    assertThat(init.at("/volumeMounts/0/readOnly").asBoolean()).isTrue();
    assertThat(init.at("/args/0").asText())
        .contains("chroot /host modprobe -v \"$m\"")
        .contains("for m in ip_tables iptable_nat iptable_filter");
    assertThat(nft.at("/spec/template/spec/initContainers/0/args/0").asText())
        .contains("for m in nf_tables nft_chain_nat nft_compat")
        .doesNotContain("ip_tables");
    assertThat(legacy.at("/spec/template/spec/automountServiceAccountToken").asBoolean(true))
        .isFalse();
    assertThat(
            legacy
                .at("/spec/template/spec/containers/0/securityContext/privileged")
                .asBoolean(false))
        .isFalse();
  }

  @Test
  void nodePrepRefusesAnUnknownMode() {
    assertThatThrownBy(
            () -> render(t -> t.set("nodePrep.enabled", true).set("nodePrep.mode", "plain")))
        .hasMessageContaining("nodePrep.mode must be one of legacy, nft, got \"plain\"");
  }
}
