package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.capability.NodeCapabilities;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable, indexed snapshot of the nodes: label values and taint sets map to bitsets of nodes
 * and nodes are grouped into capability classes, so that selecting a pod's candidates over 5,000
 * nodes is a handful of bitset operations rather than a walk over every node.
 */
public final class NodeIndex {
  private final NodeFacts[] facts;
  private final NodeCapabilities[] capabilities;
  private final Map<String, Integer> byName;
  private final Map<String, LabelValues> labelIndex;
  private final List<TaintGroup> taintGroups;
  private final List<NodeClass> classes;
  private final BitSet all;
  private final Instant validUntil;

  /** Nodes that share exactly this set of NoSchedule/NoExecute taints. */
  record TaintGroup(List<NodeFacts.TaintRule> taints, BitSet members) {}

  /**
   * One node's entry for {@link #build}.
   *
   * @param profile {@code capabilities.profile()}, which groups nodes into classes: given by a
   *     caller that keeps it across builds, since building it per node per build was a sixth of
   *     what a rebuild allocated
   */
  public record Entry(NodeFacts facts, NodeCapabilities capabilities, String profile) {
    public Entry(NodeFacts facts, NodeCapabilities capabilities) {
      this(facts, capabilities, capabilities.profile());
    }
  }

  private NodeIndex(List<Entry> entries, Instant validUntil) {
    int n = entries.size();
    this.facts = new NodeFacts[n];
    this.capabilities = new NodeCapabilities[n];
    this.byName = new HashMap<>(n * 2);
    this.labelIndex = new HashMap<>();
    Map<List<NodeFacts.TaintRule>, BitSet> taints = new LinkedHashMap<>();
    Map<String, Integer> classByProfile = new LinkedHashMap<>();
    List<NodeClass> classList = new ArrayList<>();
    this.all = new BitSet(n);
    for (int i = 0; i < n; i++) {
      Entry e = entries.get(i);
      facts[i] = e.facts();
      capabilities[i] = e.capabilities();
      byName.put(e.facts().name(), i);
      all.set(i);
      for (Map.Entry<String, String> l : e.facts().labels().entrySet()) {
        labelIndex.computeIfAbsent(l.getKey(), k -> new LabelValues()).add(l.getValue(), i);
      }
      if (!e.facts().taints().isEmpty()) {
        taints.computeIfAbsent(e.facts().taints(), t -> new BitSet()).set(i);
      }
      String profile = e.profile();
      Integer classId = classByProfile.get(profile);
      if (classId == null) {
        classId = classList.size();
        classByProfile.put(profile, classId);
        classList.add(new NodeClass(classId, e.capabilities(), new BitSet()));
      }
      classList.get(classId).members().set(i);
    }
    this.taintGroups = new ArrayList<>();
    taints.forEach((t, bits) -> taintGroups.add(new TaintGroup(t, bits)));
    this.classes = Collections.unmodifiableList(classList);
    this.validUntil = validUntil;
  }

  /**
   * @param validUntil when the first probe verdict in it expires; the view rebuilds after that
   */
  public static NodeIndex build(List<Entry> entries, Instant validUntil) {
    return new NodeIndex(entries, validUntil);
  }

  public static NodeIndex empty() {
    return new NodeIndex(List.of(), Instant.MAX);
  }

  public int size() {
    return facts.length;
  }

  public boolean isEmpty() {
    return facts.length == 0;
  }

  public Instant validUntil() {
    return validUntil;
  }

  public List<NodeClass> classes() {
    return classes;
  }

  /** The nodes the pod could be scheduled on, by the scheduler's own rules. */
  public BitSet candidates(PodSpec spec) {
    return SchedulingRules.candidates(this, spec);
  }

  public Optional<NodeCapabilities> capabilities(String node) {
    Integer i = byName.get(node);
    return i == null ? Optional.empty() : Optional.of(capabilities[i]);
  }

  public Optional<NodeFacts> facts(String node) {
    Integer i = byName.get(node);
    return i == null ? Optional.empty() : Optional.of(facts[i]);
  }

  /** Every node's name, in index order. */
  public List<String> nodeNames() {
    List<String> out = new ArrayList<>(facts.length);
    for (NodeFacts f : facts) {
      out.add(f.name());
    }
    return out;
  }

  /** Up to {@code max} names of the nodes in {@code bits}, in index order. */
  public List<String> names(BitSet bits, int max) {
    List<String> out = new ArrayList<>(Math.min(max, 16));
    for (int i = bits.nextSetBit(0); i >= 0 && out.size() < max; i = bits.nextSetBit(i + 1)) {
      out.add(facts[i].name());
    }
    return out;
  }

  BitSet all() {
    return all;
  }

  NodeFacts factsAt(int i) {
    return facts[i];
  }

  Integer indexOf(String name) {
    return byName.get(name);
  }

  /** The values of label {@code key} and their nodes; none when no node carries it. */
  LabelValues labelValues(String key) {
    return labelIndex.getOrDefault(key, NO_VALUES);
  }

  private static final LabelValues NO_VALUES = new LabelValues();

  List<TaintGroup> taintGroups() {
    return taintGroups;
  }
}
