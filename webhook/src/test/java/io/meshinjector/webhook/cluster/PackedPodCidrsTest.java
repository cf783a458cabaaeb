package io.meshinjector.webhook.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node's pod CIDRs as the store packs them: the API server's spellings in a few bytes each, any
 * other spelling as its text, and every one of them read back as exactly what it was.
 */
class PackedPodCidrsTest {

  /** The spellings the API server writes (Go's), and how many bytes each packs into. */
  @ParameterizedTest
  @CsvSource({
    "10.244.3.0/24, 4",
    "10.244.3.4/30, 5",
    "192.168.0.0/16, 3",
    "10.0.0.1/32, 5",
    "0.0.0.0/0, 1",
    "fd00:10:244:3::/64, 9",
    "fd00::/8, 2",
    "2001:db8::1/128, 17",
    "::/0, 1",
    // the longest run of zero groups is compressed, the first of two equal ones
    "1:0:0:2::3/128, 17",
    "1::2:0:3/128, 17",
    "fd00::1:0:0:2:0/127, 17",
  })
  void theApiServersSpellingPacksIntoItsBytesAndReadsBackAsItWas(String cidr, int bytes) {
    Object packed = PackedPodCidrs.pack(cidr, List.of(cidr));

    assertThat(packed).isInstanceOfSatisfying(byte[].class, b -> assertThat(b).hasSize(bytes));
    assertThat(PackedPodCidrs.podCIDR(packed)).isEqualTo(cidr);
    assertThat(PackedPodCidrs.podCIDRs(packed)).containsExactly(cidr);
  }

  @ParameterizedTest
  @CsvSource({
    // a dual-stack node: both CIDRs in 13 bytes, podCIDR the first of them and not written again
    "10.244.3.0/24, 10.244.3.0/24|fd00:10:244:3::/64, 13",
    "fd00:10:244:3::/64, fd00:10:244:3::/64|10.244.3.0/24, 13",
    // podCIDR alone (an older cluster's node, or one written by hand), podCIDRs alone: a marker
    "10.244.3.0/24, '', 5",
    ", 10.244.3.0/24, 5",
  })
  void aNodesTwoFieldsPackTogetherAndReadBackAsTheyWere(
      String podCIDR, String podCIDRs, int bytes) {
    List<String> list = podCIDRs.isEmpty() ? List.of() : List.of(podCIDRs.split("\\|"));

    Object packed = PackedPodCidrs.pack(podCIDR, list);

    assertThat(packed).isInstanceOfSatisfying(byte[].class, b -> assertThat(b).hasSize(bytes));
    assertThat(PackedPodCidrs.podCIDR(packed)).isEqualTo(podCIDR);
    assertThat(PackedPodCidrs.podCIDRs(packed)).isEqualTo(list);
  }

  /**
   * Spellings the API server accepts (or a hand-made Node may hold) whose bytes would read back
   * otherwise: kept as their text, so nothing reads back changed.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "010.244.3.0/24",
        "10.244.3.5/24",
        "10.244.3.0/024",
        "FD00::/64",
        "fd00:0:0:0:0:0:0:0/64",
        "fd00:0::/64",
        "fd00:0:0:1:0:0:2:0/127",
        "1::2:0:0:0:3/128",
        "::ffff:10.0.0.0/104",
        "fd00::1::/64",
        "10.244.3.0",
        "10.244.3.0/33",
        "fd00::/129",
        "+1::/16",
        "not a cidr",
        "",
      })
  void anyOtherSpellingIsKeptAsItsText(String cidr) {
    Object packed = PackedPodCidrs.pack(cidr, List.of(cidr));

    assertThat(packed).isInstanceOf(PackedPodCidrs.Text.class);
    assertThat(PackedPodCidrs.podCIDR(packed)).isEqualTo(cidr);
    assertThat(PackedPodCidrs.podCIDRs(packed)).containsExactly(cidr);
  }

  @org.junit.jupiter.api.Test
  void noneIsNothingAndWhatCannotBePackedIsKeptAsGiven() {
    List<String> withNull = Arrays.asList("10.244.3.0/24", null);

    assertThat(PackedPodCidrs.pack(null, List.of())).isNull();
    assertThat(PackedPodCidrs.podCIDR(null)).isNull();
    assertThat(PackedPodCidrs.podCIDRs(null)).isEmpty();
    // an explicit null list, a null entry, a podCIDR that is not the first of podCIDRs
    assertThat(PackedPodCidrs.podCIDRs(PackedPodCidrs.pack(null, null))).isNull();
    assertThat(PackedPodCidrs.podCIDRs(PackedPodCidrs.pack("10.244.3.0/24", withNull)))
        .isEqualTo(withNull);
    Object other = PackedPodCidrs.pack("10.9.0.0/24", List.of("10.244.3.0/24"));
    assertThat(PackedPodCidrs.podCIDR(other)).isEqualTo("10.9.0.0/24");
    assertThat(PackedPodCidrs.podCIDRs(other)).containsExactly("10.244.3.0/24");
  }

  @org.junit.jupiter.api.Test
  void eachReadGivesAListOfItsOwn() {
    List<String> given = new ArrayList<>(List.of("10.244.3.0/24", "FD00::/64"));
    Object packed = PackedPodCidrs.pack(null, List.of("10.244.3.0/24"));
    Object text = PackedPodCidrs.pack("10.244.3.0/24", given);
    given.add("10.1.0.0/16");

    PackedPodCidrs.podCIDRs(packed).add("10.2.0.0/16");
    PackedPodCidrs.podCIDRs(text).add("10.2.0.0/16");

    assertThat(PackedPodCidrs.podCIDRs(packed)).containsExactly("10.244.3.0/24");
    assertThat(PackedPodCidrs.podCIDRs(text)).containsExactly("10.244.3.0/24", "FD00::/64");
  }
}
