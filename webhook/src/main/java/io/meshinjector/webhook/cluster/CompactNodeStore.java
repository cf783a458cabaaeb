package io.meshinjector.webhook.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.meshinjector.webhook.lists.NodeParts;
import io.meshinjector.webhook.lists.NodeParts.Template;
import io.meshinjector.webhook.lists.Trimmed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The Node informer's cache, holding each Node as its resourceVersion, its pod CIDRs ({@link
 * PackedPodCidrs}: each node's own, packed) and a {@link Template} shared with every node of the
 * same pool (the rest of what {@link Trimmed#node} keeps, labels with the node's own name taken
 * out), in about 70 bytes a node beside its name (and 16 to 32 more for a node that has pod CIDRs)
 * instead of about 1,200 for a trimmed Node object. {@link #get} and {@link #values} make the
 * trimmed Node again, so the informer and the label publisher read what they read before.
 *
 * <p>{@link #values} is the exception: its Nodes carry their name and resourceVersion only. Its one
 * reader is fabric8's end of a list ({@code ProcessorStore.syncList}, through {@code
 * CacheImpl.list()}), which collects every value at once only to find the keys the list no longer
 * has; whole Nodes there were the start's peak at 20,000 Nodes (about 1.5 KB each, held together).
 * Read a node whole with {@link #get}.
 */
public final class CompactNodeStore implements ItemStore<Node>, StreamedLister.Packer<Node> {
  /** Stands for the node's name in a template's labels: no label value holds a NUL. */
  static final String NAME = "\u0000name";

  private final Map<String, Kept> items = new ConcurrentHashMap<>();

  /**
   * Told of each node as it is stored and of each name as it is removed, on the informer's thread.
   * The Node informer has no event handler: fabric8 queues each handler's notifications, each with
   * its Node, and during the first list of 20,000 Nodes that queue, not the view, filled an 80 MiB
   * heap while the handler caught up.
   */
  public interface Listener {
    void stored(Node node);

    void removed(String name);
  }

  private volatile Listener listener;

  public void listener(Listener listener) {
    this.listener = listener;
  }

  private final Map<Template, Template> templates = new HashMap<>();
  private final Map<Map<String, String>, Map<String, String>> labelSets = new HashMap<>();
  // the pool is pruned when it has grown past twice what was in use at the last pruning
  private int prunedAt = 64;

  /**
   * A node: its resourceVersion as a number (-1 when it is not one written plainly), its pool, and
   * in {@code own} the rest that is its own alone: null when there is none, the resourceVersion's
   * text when it is not a number, the pod CIDRs as {@link PackedPodCidrs#pack} keeps them (a {@code
   * byte[]} or a {@link PackedPodCidrs.Text}), or {@link Own} for both.
   *
   * <p>One field for both rather than a field each: the API server's resourceVersions are numbers,
   * so the text is almost never there, and a fourth field would cost every node 8 bytes under the
   * 8-byte object headers serve runs with (24 bytes a record of three, 32 of four; with 12-byte
   * headers both take 32).
   */
  private record Kept(long version, Template template, Object own) {
    String versionText() {
      return own instanceof String text
          ? text
          : own instanceof Own both ? both.versionText() : null;
    }

    Object podCidrs() {
      return own instanceof String ? null : own instanceof Own both ? both.podCidrs() : own;
    }
  }

  /** A resourceVersion that is not a number, and pod CIDRs: a node almost no API server makes. */
  private record Own(String versionText, Object podCidrs) {}

  @Override
  public String getKey(Node node) {
    return Cache.metaNamespaceKeyFunc(node);
  }

  /**
   * The Node {@link #unpack} made last, and what it was made from. The informer stores each listed
   * node right after it reads it from the list, so {@link #put} takes the kept form back rather
   * than work it out again (20,000 times at start, label set and template lookup each).
   */
  private record Unpacked(Node node, Kept kept) {}

  private volatile Unpacked lastUnpacked;

  @Override
  public Node put(String key, Node node) {
    Unpacked last = lastUnpacked;
    Kept kept = last != null && last.node() == node ? last.kept() : keep(node, true);
    Kept previous = items.put(key, kept);
    Listener l = listener;
    if (l != null) {
      l.stored(node);
    }
    return previous == null ? null : node(key, previous);
  }

  @Override
  public Node remove(String key) {
    Kept previous = items.remove(key);
    Listener l = listener;
    if (previous != null && l != null) {
      l.removed(key);
    }
    return previous == null ? null : node(key, previous);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  /** Each node as its name and resourceVersion only: see the class comment. */
  @Override
  public Stream<Node> values() {
    return items.entrySet().stream().map(e -> skeleton(e.getKey(), e.getValue()));
  }

  @Override
  public int size() {
    return items.size();
  }

  /**
   * Not the full state: a node read back is made again from what was kept, as fabric8's own
   * ReducedStateItemStore says of itself. Why it matters: with a full-state store fabric8 defers
   * the first list's add notifications to its end, then makes every node again from the store, one
   * notification each, queued for the handlers (this informer has none) faster than they are
   * dequeued. At 30,000 Nodes under the chart's 384Mi that queue held about 20,000 Nodes when the
   * replica, already not ready as its view did not fit, died of {@code OutOfMemoryError}. Not full,
   * each notification carries the node the list made anyway, as it is stored.
   */
  @Override
  public boolean isFullState() {
    return false;
  }

  @Override
  public Node get(String key) {
    Kept kept = items.get(key);
    return kept == null ? null : node(key, kept);
  }

  /** A listed node until the informer reads the list: its name and what the cache would keep. */
  private record Packed(String name, Kept kept) {}

  @Override
  public Object pack(Node node) {
    // no pruning while a list is packed: the pool would keep only the templates of the nodes
    // already put, the packed ones would lose theirs, and each node listed after a pruning would
    // make its own (22,624 templates for 20,000 Nodes of 1,428 label sets in a class histogram)
    return new Packed(node.getMetadata().getName(), keep(node, false));
  }

  @Override
  public Node unpack(Object packed) {
    Packed p = (Packed) packed;
    Node node = node(p.name(), p.kept());
    lastUnpacked = new Unpacked(node, p.kept());
    return node;
  }

  /**
   * How many distinct templates the pool holds: those of the nodes, and until the next pruning
   * those no node has any more.
   */
  synchronized int templates() {
    return templates.size();
  }

  private Kept keep(Node node, boolean prune) {
    NodeParts parts = NodeParts.of(node);
    String name = parts.name();
    Map<String, String> labels = Trimmed.compact(parts.labels());
    if (labels != null && labels.containsValue(name)) {
      Map<String, String> out = new HashMap<>(labels);
      out.replaceAll((k, v) -> v.equals(name) ? NAME : v);
      labels = Map.copyOf(out);
    }
    List<Taint> taints = parts.taints() == null ? null : withoutTimes(parts.taints());
    Template t = intern(parts.template(labels, taints), prune);
    long version = number(parts.resourceVersion());
    // a Node without a spec has no CIDRs to keep: the node made again has no spec to hold them
    Object cidrs = t.spec() ? PackedPodCidrs.pack(parts.podCIDR(), parts.podCIDRs()) : null;
    String text = version < 0 ? parts.resourceVersion() : null;
    Object own = text == null ? cidrs : cidrs == null ? text : new Own(text, cidrs);
    return new Kept(version, t, own);
  }

  /**
   * The taints without {@code timeAdded}: the node controller stamps its NoExecute taints
   * (not-ready, unreachable) with the time, which made every such node's template its own (23,593
   * templates for 23,638 Nodes on a plane without kubelets); nothing here reads it.
   */
  private static List<Taint> withoutTimes(List<Taint> taints) {
    return taints.stream()
        .map(
            t ->
                t.getTimeAdded() == null
                    ? t
                    : new Taint(t.getEffect(), t.getKey(), null, t.getValue()))
        .toList();
  }

  /** The resourceVersion as a number when it is one written plainly, else -1. */
  private static long number(String rv) {
    if (rv == null || rv.isEmpty() || rv.length() > 18 || rv.charAt(0) == '0') {
      return -1;
    }
    for (int i = 0; i < rv.length(); i++) {
      if (rv.charAt(i) < '0' || rv.charAt(i) > '9') {
        return -1;
      }
    }
    return Long.parseLong(rv);
  }

  private synchronized Template intern(Template t, boolean prune) {
    Template held = templates.get(t);
    if (held != null) {
      return held;
    }
    // templates that differ by taints alone share their labels
    if (t.labels() != null) {
      Map<String, String> labels = labelSets.putIfAbsent(t.labels(), t.labels());
      if (labels != null && labels != t.labels()) {
        t = t.withLabels(labels);
      }
    }
    templates.put(t, t);
    if (prune && templates.size() > 2 * prunedAt) {
      Set<Template> used = new HashSet<>();
      items.values().forEach(k -> used.add(k.template()));
      used.add(t);
      templates.keySet().retainAll(used);
      Set<Map<String, String>> labels = new HashSet<>();
      used.forEach(u -> labels.add(u.labels()));
      labelSets.keySet().retainAll(labels);
      prunedAt = Math.max(64, templates.size());
    }
    return t;
  }

  private static Node skeleton(String name, Kept kept) {
    ObjectMeta meta = new ObjectMeta();
    meta.setName(name);
    meta.setResourceVersion(version(kept));
    Node node = new Node();
    node.setMetadata(meta);
    return node;
  }

  private static String version(Kept kept) {
    return kept.version() >= 0 ? Long.toString(kept.version()) : kept.versionText();
  }

  private static Node node(String name, Kept kept) {
    Template t = kept.template();
    Map<String, String> labels = t.labels();
    if (labels != null && labels.containsValue(NAME)) {
      Map<String, String> out = new HashMap<>(labels);
      out.replaceAll((k, v) -> NAME.equals(v) ? name : v);
      labels = java.util.Collections.unmodifiableMap(out);
    }
    // the template's taints are shared by its nodes: each Node gets copies of its own
    List<Taint> taints =
        t.taints() == null
            ? null
            : t.taints().stream()
                .map(x -> new Taint(x.getEffect(), x.getKey(), x.getTimeAdded(), x.getValue()))
                .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
    return t.node(
        name,
        version(kept),
        labels,
        taints,
        PackedPodCidrs.podCIDR(kept.podCidrs()),
        PackedPodCidrs.podCIDRs(kept.podCidrs()));
  }
}
