package io.meshinjector.plane;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The check before the real node starts: nothing else on this machine may hold its subnet. */
class RealNodeSubnetTest {
  static final String ADDRESSES =
      "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
          + "4: eth0    inet 192.0.2.2/24 brd 192.0.2.255 scope global eth0\\       valid_lft"
          + " forever\n";
  static final String ROUTES =
      "default via 192.0.2.1 dev eth0 \n"
          + "192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2 \n"
          + "local 127.0.0.1 dev lo table local proto kernel scope host src 127.0.0.1 \n";

  @Test
  void aMachineWithoutTheSubnetPasses() {
    assertThat(RealNode.subnetHolder(ADDRESSES, ROUTES)).isEmpty();
  }

  @Test
  void theNodesOwnBridgeIsNotAnotherHolder() {
    assertThat(
            RealNode.subnetHolder(
                ADDRESSES + "7: mi-real0    inet 10.244.0.1/24 brd 10.244.0.255 scope global\n",
                ROUTES + "10.244.0.0/24 dev mi-real0 proto kernel scope link src 10.244.0.1\n"))
        .isEmpty();
  }

  @Test
  void aBridgeLeftByTheReferenceScriptIsNamed() {
    assertThat(
            RealNode.subnetHolder(
                ADDRESSES + "5: rig0    inet 10.244.0.1/24 brd 10.244.0.255 scope global rig0\n",
                ROUTES))
        .hasValue("interface rig0 (10.244.0.1/24)");
  }

  @Test
  void aRouteIntoTheSubnetThroughAnotherInterfaceIsNamed() {
    assertThat(RealNode.subnetHolder(ADDRESSES, ROUTES + "10.244.0.0/16 via 192.0.2.9 dev eth0\n"))
        .hasValue("interface eth0 (route 10.244.0.0/16)");
    assertThat(
            RealNode.subnetHolder(
                ADDRESSES, ROUTES + "local 10.244.0.7 dev veth9 table local proto kernel\n"))
        .hasValue("interface veth9 (route 10.244.0.7)");
  }

  @Test
  void neighbouringSubnetsDoNotOverlap() {
    assertThat(RealNode.overlaps("10.244.1.0/24")).isFalse();
    assertThat(RealNode.overlaps("10.245.0.1/16")).isFalse();
    assertThat(RealNode.overlaps("10.0.0.0/8")).isTrue();
    assertThat(RealNode.overlaps("10.244.0.200")).isTrue();
  }
}
