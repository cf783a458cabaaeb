package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.meshinjector.engine.rules.InjectAnnotation;
import io.meshinjector.webhook.kube.ClusterInformers;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each namespace's {@code inject} annotation mirrored into the label {@value #KEY}{@code =enabled}.
 * The chart's webhook configuration has two entries: one with {@code failurePolicy: Fail} selecting
 * the labelled namespaces, and one with {@code Ignore} for all the others. A namespace that opted
 * in therefore fails closed when no replica answers, and one that did not is never held back by a
 * dead injector. Webhook selectors can read labels only, which is why the annotation, the user's
 * switch, is copied.
 *
 * <p>A namespace annotated a moment ago and not yet labelled reaches the {@code Ignore} entry, and
 * is injected as long as a replica answers. Excluded namespaces are never labelled. Not paced: a
 * namespace's label is one patch, written when the user annotates it.
 */
public final class InjectionLabels implements LabelSubject {
  private static final Logger LOG = LoggerFactory.getLogger(InjectionLabels.class);

  /** The label the chart's fail-closed webhook entry selects on, and {@code check} looks for. */
  public static final String KEY = "mesh-injector.io/injection";

  public static final String ENABLED = "enabled";

  private final KubernetesClient client;
  private final ClusterInformers informers;
  private final Set<String> excluded;

  public InjectionLabels(
      KubernetesClient client, ClusterInformers informers, Set<String> excludedNamespaces) {
    this.client = Objects.requireNonNull(client, "client");
    this.informers = Objects.requireNonNull(informers, "informers");
    this.excluded = Set.copyOf(excludedNamespaces);
  }

  /** Whether a namespace with these annotations should carry {@value #KEY}. */
  static boolean wanted(String name, Map<String, String> annotations, Set<String> excluded) {
    return !excluded.contains(name) && InjectAnnotation.enabledBy(annotations);
  }

  @Override
  public String thread() {
    return "injection-labels";
  }

  @Override
  public String starting() {
    return "mirroring the namespaces' inject annotation into the label " + KEY;
  }

  @Override
  public void onChange(Consumer<String> listener) {
    informers.onNamespaceChanged(listener);
  }

  @Override
  public Collection<String> names() {
    return informers.namespaces().stream().map(ns -> ns.getMetadata().getName()).toList();
  }

  @Override
  public Function<String, Optional<Labels>> reader() {
    return name -> informers.namespace(name).map(this::labels);
  }

  private Labels labels(Namespace ns) {
    Map<String, String> labels = ns.getMetadata().getLabels();
    String value = labels == null ? null : labels.get(KEY);
    // any other value of the key (say, "disabled") is taken away when not wanted, and replaced
    // when wanted: the label is output only
    Map<String, String> present = value == null ? Map.of() : Map.of(KEY, value);
    boolean want = wanted(ns.getMetadata().getName(), ns.getMetadata().getAnnotations(), excluded);
    return new Labels(want ? Map.of(KEY, ENABLED) : Map.of(), present);
  }

  @Override
  public Resource<Namespace> object(String name) {
    return client.namespaces().withName(name);
  }

  @Override
  public int patchesPerSecond() {
    return 0;
  }

  @Override
  public void patched(String name, Map<String, String> patch) {
    LOG.info(
        "labels: namespace {} {} {}",
        name,
        patch.get(KEY) != null ? "labelled" : "unlabelled",
        KEY);
  }

  @Override
  public void failed(String name, KubernetesClientException e, boolean warn) {
    if (warn) {
      LOG.warn("labels: labelling namespace {} failed ({}): {}", name, e.getCode(), e.getMessage());
    }
  }
}
