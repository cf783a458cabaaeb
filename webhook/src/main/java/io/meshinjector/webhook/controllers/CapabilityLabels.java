package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.meshinjector.engine.capability.CapabilityKey;
import io.meshinjector.engine.capability.NodeCapabilities;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.webhook.cluster.InformerCaches;
import io.meshinjector.webhook.lists.Trimmed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each node's effective verdicts as {@code capability.mesh-injector.io/<key>=<verdict>} labels: the
 * labels a {@code constrain} affinity term selects on. Paced at {@code patchesPerSecond}; counted
 * in {@code mesh_injector_label_patches_total{result}}.
 */
public final class CapabilityLabels implements LabelSubject {
  private static final Logger LOG = LoggerFactory.getLogger(CapabilityLabels.class);

  /** The capability keys this release publishes, as label keys. */
  private static final Set<String> KNOWN =
      Arrays.stream(CapabilityKey.values())
          .map(CapabilityKey::label)
          .collect(Collectors.toUnmodifiableSet());

  private final KubernetesClient client;
  private final ClusterView view;
  private final InformerCaches informers;
  private final Clock clock;
  private final int patchesPerSecond;
  private final Counter patches;
  private final Counter failures;

  public CapabilityLabels(
      KubernetesClient client,
      ClusterView view,
      InformerCaches informers,
      int patchesPerSecond,
      Clock clock,
      MeterRegistry registry) {
    this.client = Objects.requireNonNull(client, "client");
    this.view = Objects.requireNonNull(view, "view");
    this.informers = Objects.requireNonNull(informers, "informers");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.patchesPerSecond = patchesPerSecond;
    this.patches = counter(registry, "ok");
    this.failures = counter(registry, "failed");
  }

  private static Counter counter(MeterRegistry registry, String result) {
    return Counter.builder("mesh_injector_label_patches")
        .description("Node label patches the capability label publisher sent")
        .tag("result", result)
        .register(registry);
  }

  @Override
  public String thread() {
    return "label-publisher";
  }

  @Override
  public String starting() {
    return "publishing capability labels, at most " + patchesPerSecond + " patches/s";
  }

  @Override
  public void onChange(Consumer<String> listener) {
    informers.onNodeChanged(listener);
  }

  @Override
  public Collection<String> names() {
    return informers.nodeNames();
  }

  @Override
  public Function<String, Optional<Labels>> reader() {
    // the latest verdicts, never a paced index: every change must reach the labels
    NodeIndex index = view.latestNodes(clock.instant());
    return name -> {
      Node node = informers.node(name).orElse(null);
      NodeCapabilities caps = index.capabilities(name).orElse(null);
      return node == null || caps == null
          ? Optional.empty()
          : Optional.of(labels(caps.labels(), node));
    };
  }

  /**
   * What {@code node} should carry and what it carries now, of this release's own keys only.
   *
   * <p>The writer removes each present key that is not wanted. Another release of a different
   * version may run beside this one and publish keys this release does not know, under the same
   * prefix; were they present here, this release would take them off and the other would put them
   * back, over and over. So a {@code capability.mesh-injector.io/*} key outside {@link
   * CapabilityKey} is left alone: this release writes, rewrites and removes only its own keys.
   */
  static Labels labels(Map<String, String> wanted, Node node) {
    Map<String, String> present = new LinkedHashMap<>(Trimmed.publishedLabels(node));
    present.keySet().retainAll(KNOWN);
    return new Labels(wanted, present);
  }

  @Override
  public Resource<Node> object(String name) {
    return client.nodes().withName(name);
  }

  @Override
  public int patchesPerSecond() {
    return patchesPerSecond;
  }

  @Override
  public void patched(String name, Map<String, String> patch) {
    patches.increment();
    LOG.debug("labels: node {} {}", name, patch);
  }

  @Override
  public void failed(String name, KubernetesClientException e, boolean warn) {
    failures.increment();
    if (warn) {
      LOG.warn(
          "labels: patching node {} failed ({}); further failures like it are counted in"
              + " mesh_injector_label_patches_total{result=\"failed\"}: {}",
          name,
          e.getCode(),
          e.getMessage());
    }
  }

  /**
   * The API server's status rather than the whole message, which also carries the request's URL.
   */
  @Override
  public String problem(KubernetesClientException e) {
    return e.getCode() + " " + e.getStatus();
  }
}
