package io.meshinjector.engine.cluster;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The view's pool of shapes: one instance per distinct shape and per distinct label set, whatever
 * the number of nodes that have it. Shapes no node has any more are dropped at each rebuild.
 */
final class NodeShapes {
  private final Map<NodeShape, NodeShape> shapes = new HashMap<>();
  private final Map<Map<String, String>, Map<String, String>> labelSets = new HashMap<>();

  synchronized NodeShape intern(NodeFacts facts) {
    NodeShape shape = NodeShape.of(facts);
    NodeShape held = shapes.get(shape);
    if (held != null) {
      return held;
    }
    // shapes that differ by taints or OS alone share their labels
    Map<String, String> labels = labelSets.putIfAbsent(shape.labels(), shape.labels());
    shape = shape.withLabels(labels == null ? shape.labels() : labels);
    shapes.put(shape, shape);
    return shape;
  }

  /** Keeps only the shapes in use (and their label sets). */
  synchronized void retain(Collection<NodeShape> inUse) {
    Set<NodeShape> used = new HashSet<>(inUse);
    shapes.keySet().retainAll(used);
    Set<Map<String, String>> labels = new HashSet<>();
    used.forEach(s -> labels.add(s.labels()));
    labelSets.keySet().retainAll(labels);
  }
}
