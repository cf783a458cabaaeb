package io.meshinjector.engine.cluster;

import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The scheduler's hard placement rules, over a {@link NodeIndex}: {@code nodeName}, {@code
 * nodeSelector}, required node affinity (terms ORed; within a term, every expression and field
 * ANDed; an empty term matches nothing) and NoSchedule/NoExecute taints the pod does not tolerate.
 * A pod with {@code nodeName} is the kubelet's to admit, not the scheduler's: its node is kept
 * unless the selector or affinity excludes it or it has a NoExecute taint the pod does not
 * tolerate.
 */
final class SchedulingRules {
  private SchedulingRules() {}

  static BitSet candidates(NodeIndex index, PodSpec spec) {
    BitSet result = (BitSet) index.all().clone();
    if (spec == null) {
      return result;
    }
    boolean bound = spec.getNodeName() != null && !spec.getNodeName().isEmpty();
    if (bound) {
      BitSet one = new BitSet();
      Integer i = index.indexOf(spec.getNodeName());
      if (i != null) {
        one.set(i);
      }
      result.and(one);
    }
    if (spec.getNodeSelector() != null) {
      for (Map.Entry<String, String> e : spec.getNodeSelector().entrySet()) {
        result.and(
            labelIn(index, e.getKey(), e.getValue() == null ? List.of() : List.of(e.getValue())));
      }
    }
    NodeSelector required = requiredAffinity(spec);
    if (required != null && required.getNodeSelectorTerms() != null) {
      BitSet anyTerm = new BitSet();
      for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
        if (term != null) { // a null term is the API server's to refuse: it matches nothing
          anyTerm.or(term(index, term));
        }
      }
      result.and(anyTerm);
    }
    List<Toleration> tolerations =
        spec.getTolerations() == null
            ? List.of()
            : spec.getTolerations().stream().filter(Objects::nonNull).toList();
    if (bound) {
      // No scheduler sees a pod that names its node: the kubelet admits it despite NoSchedule
      // taints and a cordon, and only a NoExecute taint it does not tolerate turns it away.
      int i = result.nextSetBit(0);
      if (i >= 0 && !toleratesAll(tolerations, noExecute(index.taintsAt(i)))) {
        result.clear(i);
      }
      return result;
    }
    for (NodeIndex.TaintGroup g : index.taintGroups()) {
      if (!toleratesAll(tolerations, g.taints())) {
        result.andNot(g.members());
      }
    }
    return result;
  }

  private static List<NodeFacts.TaintRule> noExecute(List<NodeFacts.TaintRule> taints) {
    return taints.stream().filter(t -> "NoExecute".equals(t.effect())).toList();
  }

  private static NodeSelector requiredAffinity(PodSpec spec) {
    if (spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null) {
      return null;
    }
    return spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
  }

  private static BitSet term(NodeIndex index, NodeSelectorTerm term) {
    List<NodeSelectorRequirement> exprs =
        term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
    List<NodeSelectorRequirement> fields =
        term.getMatchFields() == null ? List.of() : term.getMatchFields();
    if (exprs.isEmpty() && fields.isEmpty()) {
      return new BitSet();
    }
    BitSet bits = (BitSet) index.all().clone();
    for (NodeSelectorRequirement r : exprs) {
      bits.and(expression(index, r));
    }
    for (NodeSelectorRequirement r : fields) {
      bits.and(field(index, r));
    }
    return bits;
  }

  private static BitSet expression(NodeIndex index, NodeSelectorRequirement r) {
    if (r == null) {
      return new BitSet();
    }
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    String op = r.getOperator() == null ? "" : r.getOperator();
    return switch (op) {
      case "In" -> labelIn(index, r.getKey(), values);
      case "NotIn" -> complement(index, labelIn(index, r.getKey(), values));
      case "Exists" -> labelExists(index, r.getKey());
      case "DoesNotExist" -> complement(index, labelExists(index, r.getKey()));
      case "Gt", "Lt" -> compare(index, r.getKey(), op, values);
      // the API server rejects other operators; matching nothing is the safe reading
      default -> new BitSet();
    };
  }

  /** matchFields supports only {@code metadata.name} with In/NotIn (DaemonSet pods use it). */
  private static BitSet field(NodeIndex index, NodeSelectorRequirement r) {
    if (r == null || !"metadata.name".equals(r.getKey())) {
      return new BitSet();
    }
    BitSet named = new BitSet();
    if (r.getValues() != null) {
      for (String v : r.getValues()) {
        Integer i = v == null ? null : index.indexOf(v);
        if (i != null) {
          named.set(i);
        }
      }
    }
    return switch (r.getOperator() == null ? "" : r.getOperator()) {
      case "In" -> named;
      case "NotIn" -> complement(index, named);
      default -> new BitSet();
    };
  }

  private static BitSet labelIn(NodeIndex index, String key, List<String> values) {
    BitSet bits = new BitSet();
    LabelValues byValue = index.labelValues(key);
    for (String v : values) {
      byValue.orInto(bits, v);
    }
    return bits;
  }

  private static BitSet labelExists(NodeIndex index, String key) {
    BitSet bits = new BitSet();
    index.labelValues(key).orInto(bits, value -> true);
    return bits;
  }

  private static BitSet compare(NodeIndex index, String key, String op, List<String> values) {
    BitSet bits = new BitSet();
    if (values.size() != 1) {
      return bits;
    }
    long bound;
    try {
      bound = Long.parseLong(values.get(0).trim());
    } catch (NumberFormatException e) {
      return bits;
    }
    index
        .labelValues(key)
        .orInto(
            bits,
            value -> {
              long v;
              try {
                v = Long.parseLong(value.trim());
              } catch (NumberFormatException e) {
                return false;
              }
              return "Gt".equals(op) ? v > bound : v < bound;
            });
    return bits;
  }

  private static BitSet complement(NodeIndex index, BitSet bits) {
    BitSet c = (BitSet) index.all().clone();
    c.andNot(bits);
    return c;
  }

  static boolean toleratesAll(List<Toleration> tolerations, List<NodeFacts.TaintRule> taints) {
    for (NodeFacts.TaintRule t : taints) {
      if (tolerations.stream().noneMatch(tol -> tolerates(tol, t))) {
        return false;
      }
    }
    return true;
  }

  /** The scheduler's Toleration.ToleratesTaint. */
  static boolean tolerates(Toleration tol, NodeFacts.TaintRule taint) {
    String effect = tol.getEffect();
    if (effect != null && !effect.isEmpty() && !effect.equals(taint.effect())) {
      return false;
    }
    String key = tol.getKey() == null ? "" : tol.getKey();
    String op =
        tol.getOperator() == null || tol.getOperator().isEmpty() ? "Equal" : tol.getOperator();
    if (key.isEmpty()) {
      return "Exists".equals(op);
    }
    if (!key.equals(taint.key())) {
      return false;
    }
    return switch (op) {
      case "Exists" -> true;
      case "Equal" -> nullToEmpty(tol.getValue()).equals(nullToEmpty(taint.value()));
      default -> false;
    };
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
