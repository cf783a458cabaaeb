package io.meshinjector.engine.capability;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.engine.capability.NodeInference.OsFamily;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeInferenceTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Red Hat Enterprise Linux 8.10 (Ootpa)                        | RHEL          | 8  | unavailable | available",
        "Red Hat Enterprise Linux 9.4 (Plow)                          | RHEL          | 9  | unavailable | available",
        "Red Hat Enterprise Linux Server 7.9 (Maipo)                  | RHEL          | 7  | available   | unavailable",
        "Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow) | RHCOS         | -1 | unavailable | available",
        "CentOS Linux 7 (Core)                                        | CENTOS        | 7  | available   | unavailable",
        "CentOS Linux 8                                               | CENTOS        | 8  | unavailable | available",
        "CentOS Stream 8                                              | CENTOS_STREAM | 8  | unavailable | available",
        "CentOS Stream 9                                              | CENTOS_STREAM | 9  | unavailable | available",
        "Rocky Linux 8.9 (Green Obsidian)                             | ROCKY         | 8  | unavailable | available",
        "AlmaLinux 9.3 (Shamrock Pampas Cat)                          | ALMA          | 9  | unavailable | available",
        "Oracle Linux Server 8.9                                      | ORACLE        | 8  | unavailable | available",
        "Oracle Linux Server 7.9                                      | ORACLE        | 7  | available   | unavailable",
        "Ubuntu 22.04.4 LTS                                           | UBUNTU        | 22 | unknown     | unknown",
        "Debian GNU/Linux 12 (bookworm)                               | DEBIAN        | 12 | unknown     | unknown",
        "Amazon Linux 2                                               | AMAZON_LINUX  | 2  | unknown     | unknown",
        "Amazon Linux 2023.5.20240624                                 | AMAZON_LINUX  | 2023 | unknown   | unknown",
        "Bottlerocket OS 1.20.3 (aws-k8s-1.29)                        | BOTTLEROCKET  | 1  | unknown     | unknown",
        "Flatcar Container Linux by Kinvolk 3815.2.2 (Oklo)           | FLATCAR       | 3815 | unknown   | unknown",
        "Container-Optimized OS from Google                           | COS           | -1 | unknown     | unknown",
        "Windows Server 2022 Datacenter                               | UNKNOWN       | -1 | unknown     | unknown",
      })
  void osImageGivesOnlyFamilyFacts(
      String osImage, OsFamily family, int major, String legacy, String nft) {
    NodeInference.OsImage os = NodeInference.parseOsImage(osImage);
    assertThat(os.family()).isEqualTo(family);
    assertThat(os.major()).isEqualTo(major);
    Map<CapabilityKey, SourcedVerdict> v = NodeInference.infer(osImage, null, null, PodCidrs.UNSET);
    assertThat(verdict(v, CapabilityKey.IPTABLES_LEGACY)).isEqualTo(legacy);
    assertThat(verdict(v, CapabilityKey.IPTABLES_NFT)).isEqualTo(nft);
    if (!"unknown".equals(legacy)) {
      assertThat(v.get(CapabilityKey.IPTABLES_LEGACY).source()).isEqualTo(Source.INFERENCE);
      assertThat(v.get(CapabilityKey.IPTABLES_LEGACY).detail()).contains(osImage);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "v1.31.0-eks-a737599, supported",
    "v1.30.4+k3s1, supported",
    "v1.29.3-gke.1093000, supported",
    "v1.29.0, supported",
    "v1.28.9-eks-036c24b, unsupported",
    "v1.23.17, unsupported",
    "1.31.1, supported",
    "v2.0.0, unknown",
    "garbage, unknown",
    "'', unknown",
  })
  void kubeletVersionDecidesNativeSidecars(String kubelet, String expected) {
    Map<CapabilityKey, SourcedVerdict> v = NodeInference.infer(null, kubelet, null, PodCidrs.UNSET);
    assertThat(verdict(v, CapabilityKey.NATIVE_SIDECAR)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "linux, linux",
    "windows, windows",
    // nodeInfo says nothing a kubelet does not: any other value is not guessed at
    "freebsd, unknown",
    "'', unknown",
  })
  void operatingSystemGivesTheOsVerdict(String os, String expected) {
    Map<CapabilityKey, SourcedVerdict> v =
        NodeInference.infer(null, null, os.isEmpty() ? null : os, PodCidrs.UNSET);
    assertThat(verdict(v, CapabilityKey.OS)).isEqualTo(expected);
    if (!"unknown".equals(expected)) {
      assertThat(v.get(CapabilityKey.OS).source()).isEqualTo(Source.INFERENCE);
      assertThat(v.get(CapabilityKey.OS).detail()).contains(os);
    }
  }

  @ParameterizedTest(name = "{0} / {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "10.244.1.0/24                     |               | absent",
        "10.244.1.0/24,fd00:10:244:1::/64  |               | present",
        "fd00:10:244:1::/64                |               | present",
        "                                  | 10.244.1.0/24 | absent",
        "                                  | fd00::/64     | present",
        // no range at all: a network plugin that assigns addresses itself; nobody knows
        "                                  |               | unknown",
      })
  void podCidrsGiveTheIpv6PodsVerdict(String podCidrs, String podCidr, String expected) {
    PodCidrs cidrs = PodCidrs.of(podCidrs == null ? null : List.of(podCidrs.split(",")), podCidr);
    Map<CapabilityKey, SourcedVerdict> v = NodeInference.infer(null, null, null, cidrs);
    assertThat(verdict(v, CapabilityKey.IPV6_PODS)).isEqualTo(expected);
  }

  private static String verdict(Map<CapabilityKey, SourcedVerdict> v, CapabilityKey k) {
    return v.containsKey(k) ? v.get(k).verdict().id() : "unknown";
  }
}
