package io.meshinjector.engine.capability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CapabilityKeyTest {
  @Test
  void parsesOnlyTheVerdictsOfItsKey() {
    assertThat(CapabilityKey.CNI.parseVerdict("ready")).isEqualTo(Verdict.READY);
    assertThatThrownBy(() -> CapabilityKey.CNI.parseVerdict("available"))
        .hasMessageContaining("'cni'")
        .hasMessageContaining("[ready, absent, unknown]");
  }

  @Test
  void labelsCarryThePrefix() {
    assertThat(CapabilityKey.IPTABLES_NFT.label())
        .isEqualTo("capability.mesh-injector.io/iptables-nft");
  }

  @Test
  void unknownKeyIsNamed() {
    assertThatThrownBy(() -> CapabilityKey.parse("ebpf")).hasMessageContaining("'ebpf'");
  }
}
