package io.meshinjector.engine.cluster;

import io.meshinjector.engine.capability.PodCidrs;
import io.meshinjector.engine.registry.CapabilityResolver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a node shares with the other nodes of its pool: its labels, its taints, its OS image and its
 * kubelet. A large cluster's nodes fall into a few such shapes, so the view holds each shape once
 * and each node as its name and a reference to its shape. A label whose value is the node's own
 * name ({@code kubernetes.io/hostname}) is held as {@link #NAME}, so that it does not make every
 * node's shape its own; {@link #labelsOf} puts the name back.
 */
public final class NodeShape {
  /**
   * Stands for the node's name in {@link #labels()}. A label value cannot hold a NUL, so no real
   * value is mistaken for it.
   */
  static final String NAME = "\u0000name";

  private final Map<String, String> labels;
  private final List<NodeFacts.TaintRule> taints;
  private final String osImage;
  private final String kubeletVersion;
  private final String operatingSystem;
  private final PodCidrs podCidrs;
  private final boolean named;
  private final int hash;

  /** What the resolver reads of every node of this shape: built once, read at every rebuild. */
  private final CapabilityResolver.NodeDescription shared;

  NodeShape(
      Map<String, String> labels,
      List<NodeFacts.TaintRule> taints,
      String osImage,
      String kubeletVersion,
      String operatingSystem,
      PodCidrs podCidrs) {
    this.labels = Map.copyOf(labels);
    this.taints = List.copyOf(taints);
    this.osImage = osImage;
    this.kubeletVersion = kubeletVersion;
    this.operatingSystem = operatingSystem;
    this.podCidrs = podCidrs;
    this.named = this.labels.containsValue(NAME);
    // computed once: shapes are keys of the view's pools, hashed at every node update and rebuild
    this.hash =
        Objects.hash(this.labels, this.taints, osImage, kubeletVersion, operatingSystem, podCidrs);
    this.shared =
        new CapabilityResolver.NodeDescription(
            this.labels, osImage, kubeletVersion, operatingSystem, podCidrs);
  }

  /** The shape of {@code facts}, its own name taken out of its labels. */
  static NodeShape of(NodeFacts facts) {
    Map<String, String> labels = facts.labels();
    if (labels.containsValue(facts.name())) {
      Map<String, String> out = new HashMap<>(labels);
      out.replaceAll((k, v) -> v.equals(facts.name()) ? NAME : v);
      labels = out;
    }
    return new NodeShape(
        labels,
        facts.taints(),
        facts.osImage(),
        facts.kubeletVersion(),
        facts.operatingSystem(),
        facts.podCidrs());
  }

  /** The labels, {@link #NAME} standing for the node's name. */
  Map<String, String> labels() {
    return labels;
  }

  /** The labels of the node called {@code name}. */
  Map<String, String> labelsOf(String name) {
    if (!named) {
      return labels;
    }
    Map<String, String> out = new HashMap<>(labels);
    out.replaceAll((k, v) -> NAME.equals(v) ? name : v);
    return out;
  }

  List<NodeFacts.TaintRule> taints() {
    return taints;
  }

  /** What the resolver reads of a node of this shape called {@code name}. */
  CapabilityResolver.NodeDescription description(String name) {
    return new CapabilityResolver.NodeDescription(
        labelsOf(name), osImage, kubeletVersion, operatingSystem, podCidrs);
  }

  /** What the resolver reads of every node of this shape, its name left as {@link #NAME}. */
  CapabilityResolver.NodeDescription sharedDescription() {
    return shared;
  }

  /** Whether one of {@code keys} holds the node's name here, so that its value is the node's. */
  boolean namesAny(Set<String> keys) {
    if (!named) {
      return false;
    }
    for (String key : keys) {
      if (NAME.equals(labels.get(key))) {
        return true;
      }
    }
    return false;
  }

  NodeFacts facts(String name) {
    return new NodeFacts(
        name, labelsOf(name), taints, osImage, kubeletVersion, operatingSystem, podCidrs);
  }

  /** The same shape with its label set and strings replaced by the pool's equal ones. */
  NodeShape withLabels(Map<String, String> shared) {
    return shared == labels
        ? this
        : new NodeShape(shared, taints, osImage, kubeletVersion, operatingSystem, podCidrs);
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || o instanceof NodeShape s
            && hash == s.hash
            && labels.equals(s.labels)
            && taints.equals(s.taints)
            && Objects.equals(osImage, s.osImage)
            && Objects.equals(kubeletVersion, s.kubeletVersion)
            && Objects.equals(operatingSystem, s.operatingSystem)
            && podCidrs == s.podCidrs;
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "NodeShape"
        + labels
        + taints
        + "/"
        + osImage
        + "/"
        + kubeletVersion
        + "/"
        + operatingSystem
        + "/"
        + podCidrs;
  }
}
