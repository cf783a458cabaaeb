package io.meshinjector.engine.cluster;

import io.meshinjector.engine.capability.NodeCapabilities;
import java.util.BitSet;

/**
 * Nodes with the same verdicts from the same sources: the engine decides per class, not per node.
 *
 * @param capabilities the verdicts of the class's first node (details may differ between members)
 * @param members indexes into the {@link NodeIndex}; never mutated after the index is built
 * @param verdictLine {@link NodeCapabilities#describe()}, written once per class when the index is
 *     built rather than for every pod a decision traces it for
 */
public record NodeClass(int id, NodeCapabilities capabilities, BitSet members, String verdictLine) {
  public NodeClass(int id, NodeCapabilities capabilities, BitSet members) {
    this(id, capabilities, members, capabilities.describe());
  }
}
