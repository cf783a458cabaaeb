package io.meshinjector.engine;

import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.SourcedVerdict;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeClass;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.decision.TraceStep;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The capability classes among the nodes a pod could land on, with the node names and class lines
 * the decision reports.
 *
 * @param classes one per capability class with candidates; one of no node whose capabilities are
 *     all unknown when no node is a candidate
 * @param count how many nodes are candidates
 * @param names up to {@code maxCandidateNodes} of their names
 */
record CandidateNodes(
    List<Candidate> classes, int count, List<String> names, List<String> classLines) {

  /** Before the candidates are looked at: a decision that ends earlier reports none. */
  static final CandidateNodes NONE = new CandidateNodes(List.of(), 0, List.of(), List.of());

  /**
   * The candidates from nodeName, nodeSelector, required node affinity and taints; the trace and
   * the warnings say what was found.
   *
   * @param maxNames how many candidate names to report
   */
  static CandidateNodes of(
      ClusterView cluster, Instant now, Pod pod, int maxNames, DecisionLog log) {
    NodeIndex index = cluster.nodes(now);
    BitSet bits = index.candidates(pod.getSpec());
    int count = bits.cardinality();
    List<String> names = index.names(bits, maxNames);
    List<Candidate> out = new ArrayList<>();
    List<String> classLines = new ArrayList<>();
    if (count == 0) {
      String why =
          index.isEmpty()
              ? "the cluster view has no nodes"
              : "no known node matches the pod's scheduling rules (a node may join later)";
      log.warn(why + "; deciding for a node whose capabilities are all unknown");
      log.add(new TraceStep("candidates", why));
      NodeCapabilities unknown = new NodeCapabilities(unknownVerdicts(why));
      out.add(new Candidate(new NodeClass(0, unknown, new BitSet()), 0, List.of()));
      classLines.add("unknown node: " + unknown.profile());
      return new CandidateNodes(out, count, names, classLines);
    }
    for (NodeClass cls : index.classes()) {
      BitSet members = (BitSet) cls.members().clone();
      members.and(bits);
      int inClass = members.cardinality();
      if (inClass > 0) {
        Candidate c = new Candidate(cls, inClass, index.names(members, Math.min(maxNames, 5)));
        out.add(c);
        classLines.add(c.describe() + ": " + cls.verdictLine());
      }
    }
    log.add(
        new TraceStep(
            "candidates",
            count
                + " candidate node(s) in "
                + out.size()
                + " capability class(es) from nodeName, nodeSelector, required node affinity and"
                + " taints"));
    for (String line : classLines) {
      log.add(new TraceStep("classes", line));
    }
    return new CandidateNodes(out, count, names, classLines);
  }

  private static Map<CapabilityKey, SourcedVerdict> unknownVerdicts(String why) {
    Map<CapabilityKey, SourcedVerdict> m = new EnumMap<>(CapabilityKey.class);
    for (CapabilityKey k : CapabilityKey.values()) {
      m.put(k, SourcedVerdict.unknown(why));
    }
    return m;
  }
}
