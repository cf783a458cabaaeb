package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;

/**
 * What is kept of a Node, filled in as it is read: from a bound Node ({@link Trimmed#node}), from a
 * list's JSON ({@link TrimmedNodeReader}) or from its protobuf ({@link ProtobufNodeReader}). All
 * three make the trimmed Node here, so a node looks the same to the view however it was read.
 */
final class NodeParts {
  String name;
  String resourceVersion;
  Map<String, String> labels;

  /** Whether the Node had a spec; {@code taints} and {@code unschedulable} are its. */
  boolean spec;

  List<Taint> taints;
  Boolean unschedulable;

  /** Whether the Node had status.nodeInfo; {@code osImage} and {@code kubelet} are its. */
  boolean info;

  String osImage;
  String kubelet;

  /** The trimmed Node: labels compact, strings shared. */
  Node trimmed() {
    return Trimmed.assembled(
        name,
        resourceVersion,
        Trimmed.compact(labels),
        spec,
        taints,
        unschedulable,
        info,
        Trimmed.shared(osImage),
        Trimmed.shared(kubelet));
  }
}
