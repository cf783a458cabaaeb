package io.meshinjector.engine.check;

import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.capability.Verdict;
import io.meshinjector.engine.cluster.NodeClass;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.rules.Viability;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which redirect paths work on each node, decided per capability class as admission decides (so
 * 5,000 nodes cost a handful of classes): the nodes where none of the preferred paths works, and
 * how many nodes hold each verdict.
 */
public final class NodePaths {
  /** A node where no path of {@code policy.preference} works, and what it lacks for each. */
  public record NoPath(String node, String lacks) {}

  private NodePaths() {}

  /** The nodes where no preferred path works, in index order. */
  public static List<NoPath> withoutPath(
      NodeIndex index, Viability viability, List<PathOption> preference) {
    List<NoPath> out = new ArrayList<>();
    for (NodeClass c : index.classes()) {
      if (preference.stream().anyMatch(p -> viability.viable(p, c.capabilities()))) {
        continue;
      }
      String lacks = lacks(c.capabilities(), viability, preference);
      for (String node : index.names(c.members(), Integer.MAX_VALUE)) {
        out.add(new NoPath(node, lacks));
      }
    }
    return out;
  }

  /** How many nodes there are where no preferred path works; cheaper than listing them. */
  public static int countWithoutPath(
      NodeIndex index, Viability viability, List<PathOption> preference) {
    int n = 0;
    for (NodeClass c : index.classes()) {
      if (preference.stream().noneMatch(p -> viability.viable(p, c.capabilities()))) {
        n += c.members().cardinality();
      }
    }
    return n;
  }

  static String lacks(NodeCapabilities caps, Viability viability, List<PathOption> preference) {
    return preference.stream()
        .map(p -> p + " needs " + viability.lack(p, caps))
        .distinct()
        .collect(Collectors.joining("; "));
  }

  /** The nodes whose effective verdict for {@code key} is {@code verdict}, in index order. */
  public static List<String> withVerdict(NodeIndex index, CapabilityKey key, Verdict verdict) {
    List<String> out = new ArrayList<>();
    for (NodeClass c : index.classes()) {
      if (c.capabilities().verdict(key) == verdict) {
        out.addAll(index.names(c.members(), Integer.MAX_VALUE));
      }
    }
    return out;
  }

  /** Nodes per key and effective verdict (after overrides, probe, live state and inference). */
  public static Map<CapabilityKey, Map<Verdict, Integer>> verdictCounts(NodeIndex index) {
    Map<CapabilityKey, Map<Verdict, Integer>> counts = new EnumMap<>(CapabilityKey.class);
    for (CapabilityKey key : CapabilityKey.values()) {
      Map<Verdict, Integer> perVerdict = new EnumMap<>(Verdict.class);
      for (Verdict v : key.verdicts()) {
        perVerdict.put(v, 0);
      }
      counts.put(key, perVerdict);
    }
    for (NodeClass c : index.classes()) {
      int members = c.members().cardinality();
      for (CapabilityKey key : CapabilityKey.values()) {
        counts.get(key).merge(c.capabilities().verdict(key), members, Integer::sum);
      }
    }
    return counts;
  }
}
