package io.meshinjector.webhook.lists;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Map;

/**
 * What is kept of a Node, and the one place that says which fields those are: the fields below, as
 * they are read, and a {@link Template}, what a pool of nodes shares (all of them but the name,
 * resourceVersion and pod CIDRs, which are each node's own). Filled in from a bound Node ({@link
 * #of}, for {@link Trimmed#node}), from a list's JSON ({@link TrimmedNodeReader}) or from its
 * protobuf ({@link ProtobufNodeReader}); every trimmed Node, these and the ones {@link
 * io.meshinjector.webhook.cluster.CompactNodeStore} makes again from its templates, is made by
 * {@link Template#node}, so a node looks the same to the view however it was read.
 *
 * <p>To keep one more field: add it here (the fields, {@link #of}, {@link #template}, {@link
 * Template} and its {@link Template#node}), then to the two readers.
 */
public final class NodeParts {
  String name;
  String resourceVersion;
  Map<String, String> labels;

  /**
   * Whether the Node had a spec; {@code taints}, {@code unschedulable}, {@code podCIDR} and {@code
   * podCIDRs} are its.
   */
  boolean spec;

  List<Taint> taints;
  Boolean unschedulable;

  /**
   * The node's pod ranges: {@code spec.podCIDRs}, one per IP family, and {@code spec.podCIDR}, the
   * single field older clusters set (the API server sets it to the first of {@code podCIDRs}). The
   * decision reads their families; unlike the rest they differ from node to node, so they are no
   * part of the {@link Template}.
   */
  String podCIDR;

  List<String> podCIDRs;

  /**
   * Whether the Node had status.nodeInfo; {@code osImage}, {@code kubelet} and {@code
   * operatingSystem} are its.
   */
  boolean info;

  String osImage;
  String kubelet;

  /** The kubelet's GOOS ({@code linux}, {@code windows}), which the decision reads. */
  String operatingSystem;

  /** The parts of a bound Node, as it holds them. */
  public static NodeParts of(Node node) {
    NodeSpec spec = node.getSpec();
    NodeSystemInfo info = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
    NodeParts parts = new NodeParts();
    parts.name = node.getMetadata().getName();
    parts.resourceVersion = node.getMetadata().getResourceVersion();
    parts.labels = node.getMetadata().getLabels();
    parts.spec = spec != null;
    parts.taints = spec == null ? null : spec.getTaints();
    parts.unschedulable = spec == null ? null : spec.getUnschedulable();
    parts.podCIDR = spec == null ? null : spec.getPodCIDR();
    parts.podCIDRs = spec == null ? null : spec.getPodCIDRs();
    parts.info = info != null;
    parts.osImage = info == null ? null : info.getOsImage();
    parts.kubelet = info == null ? null : info.getKubeletVersion();
    parts.operatingSystem = info == null ? null : info.getOperatingSystem();
    return parts;
  }

  /**
   * The trimmed Node: its labels made compact and its pool's strings shared, here, on the way (not
   * the pod CIDRs: each node has its own).
   */
  Node trimmed() {
    labels = Trimmed.compact(labels);
    osImage = Trimmed.shared(osImage);
    kubelet = Trimmed.shared(kubelet);
    operatingSystem = Trimmed.shared(operatingSystem);
    return template().node(name, resourceVersion, labels, taints, podCIDR, podCIDRs);
  }

  /** All but the name and resourceVersion, as they are now. */
  Template template() {
    return template(labels, taints);
  }

  /**
   * All but the name and resourceVersion, with {@code labels} and {@code taints} in place of these
   * parts' own: for a store that keeps them otherwise ({@link
   * io.meshinjector.webhook.cluster.CompactNodeStore}).
   */
  public Template template(Map<String, String> labels, List<Taint> taints) {
    return new Template(
        labels, spec, taints, unschedulable, info, osImage, kubelet, operatingSystem);
  }

  public String name() {
    return name;
  }

  public String resourceVersion() {
    return resourceVersion;
  }

  public Map<String, String> labels() {
    return labels;
  }

  public List<Taint> taints() {
    return taints;
  }

  public String podCIDR() {
    return podCIDR;
  }

  public List<String> podCIDRs() {
    return podCIDRs;
  }

  /**
   * What a pool of nodes shares: all that is kept of a Node but its name, resourceVersion and pod
   * CIDRs. The unit {@link io.meshinjector.webhook.cluster.CompactNodeStore} holds once for all the
   * nodes that have it.
   *
   * @param spec whether the Node had a spec; {@code taints} and {@code unschedulable} are its, and
   *     the pod CIDRs {@link #node} is given
   * @param info whether it had status.nodeInfo; {@code osImage}, {@code kubelet} and {@code
   *     operatingSystem} are its
   */
  public record Template(
      Map<String, String> labels,
      boolean spec,
      List<Taint> taints,
      Boolean unschedulable,
      boolean info,
      String osImage,
      String kubelet,
      String operatingSystem) {

    public Template withLabels(Map<String, String> labels) {
      return new Template(
          labels, spec, taints, unschedulable, info, osImage, kubelet, operatingSystem);
    }

    /**
     * The trimmed Node {@code name} of this template, with {@code labels} and {@code taints} in
     * place of the template's: the node's own, kept as given (its labels already as the trimmed
     * Node keeps them, compact; the caller passes lists of its own), and the node's pod CIDRs,
     * which only a Node with a spec carries.
     *
     * <p>Made with the model's setters rather than fabric8's builders: a builder copies each nested
     * object once more on the way, and making 20,000 Nodes that way, twice each as the informer
     * takes in the first list, was most of the time between the list's end and the view in sync.
     */
    public Node node(
        String name,
        String resourceVersion,
        Map<String, String> labels,
        List<Taint> taints,
        String podCIDR,
        List<String> podCIDRs) {
      ObjectMeta metadata = new ObjectMeta();
      metadata.setName(name);
      metadata.setResourceVersion(resourceVersion);
      metadata.setLabels(labels);
      Node node = new Node();
      node.setApiVersion("v1");
      node.setKind("Node");
      node.setMetadata(metadata);
      if (spec) {
        NodeSpec kept = new NodeSpec();
        kept.setTaints(taints);
        kept.setUnschedulable(unschedulable);
        kept.setPodCIDR(podCIDR);
        kept.setPodCIDRs(podCIDRs);
        node.setSpec(kept);
      }
      if (info) {
        NodeSystemInfo kept = new NodeSystemInfo();
        kept.setOsImage(osImage);
        kept.setKubeletVersion(kubelet);
        kept.setOperatingSystem(operatingSystem);
        NodeStatus status = new NodeStatus();
        status.setNodeInfo(kept);
        node.setStatus(status);
      }
      return node;
    }
  }
}
