package io.meshinjector.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class LabelValuesTest {
  static BitSet bits(int... nodes) {
    BitSet b = new BitSet();
    for (int n : nodes) {
      b.set(n);
    }
    return b;
  }

  @Test
  void aValueKeepsEveryNodeThatCarriesItWhetherOneOrMany() {
    LabelValues values = new LabelValues(null);
    values.add("ip-10-0-0-1", 4_999);
    values.add("rhel", 3);
    values.add("rhel", 70);
    values.add("rhel", 1_000);

    BitSet host = new BitSet();
    values.orInto(host, "ip-10-0-0-1");
    BitSet rhel = new BitSet();
    values.orInto(rhel, "rhel");
    BitSet none = new BitSet();
    values.orInto(none, "al2023");

    assertThat(host).isEqualTo(bits(4_999));
    assertThat(rhel).isEqualTo(bits(3, 70, 1_000));
    assertThat(none).isEqualTo(new BitSet());
  }

  @Test
  void addsToWhatTheTargetHoldsTheNodesOfTheValuesThatMatch() {
    LabelValues values = new LabelValues(null);
    values.add("2", 1);
    values.add("8", 2);
    values.add("8", 5);
    values.add("not-a-number", 9);
    BitSet target = bits(0);

    values.orInto(target, v -> v.equals("8") || v.equals("not-a-number"));

    assertThat(target).isEqualTo(bits(0, 2, 5, 9));
  }
}
