package io.meshinjector.engine.cluster;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One label key's values, each with the nodes (by index) that carry it. A value that one node alone
 * carries (an instance id) keeps that node's index, not a bitset: a bitset is as long as the
 * highest index it holds, so one per node would cost the cluster's size in bits for every node,
 * memory that grows with the square of the cluster (12.5 MB at 10,000 Nodes with two such labels
 * each). A value that is the node's own name ({@code kubernetes.io/hostname}) is not held at all:
 * one bitset says which nodes carry their name, and the index's names find the node.
 */
final class LabelValues {
  /** A value's nodes: an {@link Integer} while one node carries it, then a {@link BitSet}. */
  private final Map<String, Object> byValue = new HashMap<>();

  private final NodeIndex index;

  /** The nodes whose value is their own name. */
  private BitSet named;

  LabelValues(NodeIndex index) {
    this.index = index;
  }

  void add(String value, int node) {
    if (NodeShape.NAME.equals(value)) {
      if (named == null) {
        named = new BitSet();
      }
      named.set(node);
      return;
    }
    byValue.merge(value, node, LabelValues::join);
  }

  private static Object join(Object held, Object added) {
    BitSet bits;
    if (held instanceof Integer one) {
      bits = new BitSet();
      bits.set(one);
    } else {
      bits = (BitSet) held;
    }
    bits.set((Integer) added);
    return bits;
  }

  /** Adds to {@code target} the nodes of every value that {@code matches}. */
  void orInto(BitSet target, Predicate<String> matches) {
    byValue.forEach(
        (value, nodes) -> {
          if (matches.test(value)) {
            orInto(target, nodes);
          }
        });
    if (named != null) {
      for (int i = named.nextSetBit(0); i >= 0; i = named.nextSetBit(i + 1)) {
        if (matches.test(index.nameAt(i))) {
          target.set(i);
        }
      }
    }
  }

  /** Adds to {@code target} the nodes that carry {@code value}. */
  void orInto(BitSet target, String value) {
    Object nodes = byValue.get(value);
    if (nodes != null) {
      orInto(target, nodes);
    }
    if (named != null) {
      Integer i = index.indexOf(value);
      if (i != null && named.get(i)) {
        target.set(i);
      }
    }
  }

  private static void orInto(BitSet target, Object nodes) {
    if (nodes instanceof Integer one) {
      target.set(one);
    } else {
      target.or((BitSet) nodes);
    }
  }
}
