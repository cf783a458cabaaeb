package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.meshinjector.engine.capability.NodeCapabilities;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
 *
 * <p>Each node is held as its name, its {@link NodeShape} and its verdicts, the last two shared
 * with every node that has the same: 20,000 Nodes cost about 12 bytes each here beside their names.
 * Names are in order, so a node is found by binary search, not through a map of its own.
 */
public final class NodeIndex {
  private final String[] names;
  private final NodeShape[] shapes;
  private final NodeCapabilities[] capabilities;
  // null when the names came in order, as the view gives them: then binary search finds a node
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
  public record Entry(
      String name, NodeShape shape, NodeCapabilities capabilities, String profile) {}

  private NodeIndex(List<Entry> entries, Instant validUntil) {
    int n = entries.size();
    this.names = new String[n];
    this.shapes = new NodeShape[n];
    this.capabilities = new NodeCapabilities[n];
    this.labelIndex = new HashMap<>();
    Map<List<NodeFacts.TaintRule>, BitSet> taints = new LinkedHashMap<>();
    Map<String, Integer> classByProfile = new LinkedHashMap<>();
    List<NodeClass> classList = new ArrayList<>();
    // the labels of each shape are indexed once, then each label value's nodes set per node
    Map<Map<String, String>, List<Map.Entry<LabelValues, String>>> shapeLabels = new HashMap<>();
    this.all = new BitSet(n);
    boolean sorted = true;
    for (int i = 0; i < n; i++) {
      Entry e = entries.get(i);
      names[i] = e.name();
      shapes[i] = e.shape();
      capabilities[i] = e.capabilities();
      sorted &= i == 0 || names[i - 1].compareTo(names[i]) < 0;
      all.set(i);
      for (Map.Entry<LabelValues, String> l :
          shapeLabels.computeIfAbsent(e.shape().labels(), this::labelSlots)) {
        l.getKey().add(l.getValue(), i);
      }
      if (!e.shape().taints().isEmpty()) {
        taints.computeIfAbsent(e.shape().taints(), t -> new BitSet()).set(i);
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
    if (sorted) {
      this.byName = null;
    } else {
      this.byName = new HashMap<>(n * 2);
      for (int i = 0; i < n; i++) {
        byName.putIfAbsent(names[i], i);
      }
    }
    this.taintGroups = new ArrayList<>();
    taints.forEach((t, bits) -> taintGroups.add(new TaintGroup(t, bits)));
    this.classes = Collections.unmodifiableList(classList);
    this.validUntil = validUntil;
  }

  private List<Map.Entry<LabelValues, String>> labelSlots(Map<String, String> labels) {
    List<Map.Entry<LabelValues, String>> out = new ArrayList<>(labels.size());
    labels.forEach(
        (k, v) -> out.add(Map.entry(labelIndex.computeIfAbsent(k, x -> new LabelValues(this)), v)));
    return out;
  }

  /**
   * @param validUntil when the first probe verdict in it expires; the view rebuilds after that
   */
  public static NodeIndex build(List<Entry> entries, Instant validUntil) {
    return new NodeIndex(entries, validUntil);
  }

  /**
   * The index a view holds before its first build: expired for every clock, so that a read waits
   * for that build rather than decide over no nodes.
   */
  static NodeIndex notBuilt() {
    return new NodeIndex(List.of(), Instant.MIN);
  }

  public int size() {
    return names.length;
  }

  public boolean isEmpty() {
    return names.length == 0;
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
    Integer i = indexOf(node);
    return i == null ? Optional.empty() : Optional.of(capabilities[i]);
  }

  /** The node as the engine reads it, made from its shape on each call. */
  public Optional<NodeFacts> facts(String node) {
    Integer i = indexOf(node);
    return i == null ? Optional.empty() : Optional.of(shapes[i].facts(names[i]));
  }

  /** Every node's name, in index order. */
  public List<String> nodeNames() {
    return Collections.unmodifiableList(Arrays.asList(names));
  }

  /** Up to {@code max} names of the nodes in {@code bits}, in index order. */
  public List<String> names(BitSet bits, int max) {
    List<String> out = new ArrayList<>(Math.min(max, 16));
    for (int i = bits.nextSetBit(0); i >= 0 && out.size() < max; i = bits.nextSetBit(i + 1)) {
      out.add(names[i]);
    }
    return out;
  }

  BitSet all() {
    return all;
  }

  String nameAt(int i) {
    return names[i];
  }

  List<NodeFacts.TaintRule> taintsAt(int i) {
    return shapes[i].taints();
  }

  Integer indexOf(String name) {
    if (name == null) {
      return null;
    }
    if (byName != null) {
      return byName.get(name);
    }
    int i = Arrays.binarySearch(names, name);
    return i >= 0 ? i : null;
  }

  /** The values of label {@code key} and their nodes; none when no node carries it. */
  LabelValues labelValues(String key) {
    return labelIndex.getOrDefault(key, NO_VALUES);
  }

  private static final LabelValues NO_VALUES = new LabelValues(null);

  List<TaintGroup> taintGroups() {
    return taintGroups;
  }
}
