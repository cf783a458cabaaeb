package io.meshinjector.engine;

import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.cluster.NodeClass;
import java.util.List;

/** A capability class restricted to the pod's candidate nodes. */
record Candidate(NodeClass cls, int count, List<String> sample) {
  NodeCapabilities caps() {
    return cls.capabilities();
  }

  String describe() {
    String names = String.join(", ", sample) + (count > sample.size() ? ", ..." : "");
    return "class " + cls.id() + " (" + count + (count == 1 ? " node: " : " nodes: ") + names + ")";
  }
}
