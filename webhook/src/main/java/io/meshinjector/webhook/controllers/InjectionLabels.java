package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.engine.revisions.RouteResolver;
import io.meshinjector.engine.rules.NamespaceInject;
import io.meshinjector.webhook.cluster.InformerCaches;
import io.meshinjector.webhook.revisions.RevisionsWatch;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each namespace's route: its {@code inject} annotation and {@value RevisionNames#REV} (in the
 * Istio flavour, also its {@code istio-injection} and {@code istio.io/rev} labels) mirrored into
 * the one label {@value #KEY}, whose value names the revision or tag that injects it ({@value
 * RevisionNames#DEFAULT_ROUTE} for the default tag, the value it had before revisions). The entries
 * of that revision or tag select the label and fail closed; every other namespace reaches only
 * catch-all entries, which fail open, so a dead injector never holds back a namespace that did not
 * ask for it. Webhook selectors can read labels only, which is why the annotations, the user's
 * switches, are copied.
 *
 * <p>Exactly one release writes these labels (config {@code revisions.namespaceLabels}, the chart's
 * release that runs the probe), so two releases never fight over a namespace. A name is written
 * only once some entry takes it: a tag or a revision with entries of its own, or a name no release
 * serves (the catch-alls refuse its pods). A namespace that follows the default tag while the
 * cluster has neither a tag default nor a revision called default stays unlabelled and is injected
 * through the catch-all, failing open, rather than labelled for entries that do not exist.
 *
 * <p>A namespace annotated a moment ago and not yet labelled reaches the catch-all entries, and is
 * injected as long as a replica answers. Excluded namespaces are never labelled. Not paced: a
 * namespace's label is one patch, written when the user annotates it.
 */
public final class InjectionLabels implements LabelSubject {
  private static final Logger LOG = LoggerFactory.getLogger(InjectionLabels.class);

  /** The label the chart's fail-closed webhook entry selects on, and {@code check} looks for. */
  public static final String KEY = RevisionNames.ROUTE_LABEL;

  private final KubernetesClient client;
  private final InformerCaches informers;
  private final InjectionConfig injection;
  private final RevisionsWatch revisions;
  private final RouteResolver routes;

  public InjectionLabels(
      KubernetesClient client,
      InformerCaches informers,
      InjectionConfig injection,
      RevisionsWatch revisions) {
    this.client = Objects.requireNonNull(client, "client");
    this.informers = Objects.requireNonNull(informers, "informers");
    this.injection = Objects.requireNonNull(injection, "injection");
    this.revisions = Objects.requireNonNull(revisions, "revisions");
    this.routes = RouteResolver.of(injection);
  }

  /** The value of {@value #KEY} a namespace should carry, or empty for none. */
  public static Optional<String> wanted(
      Namespace ns, InjectionConfig injection, RouteResolver routes, Revisions revisions) {
    if (injection.excludedNamespaces().contains(ns.getMetadata().getName())
        || !NamespaceInject.enabled(ns, injection.meshNamespaceLabels())) {
      return Optional.empty();
    }
    String asked = routes.namespaceAsks(ns).name();
    if (!revisions.known()
        || revisions.hasOwnEntries(asked)
        || (!revisions.names(asked) && !RevisionNames.DEFAULT.equals(asked))) {
      return Optional.of(RevisionNames.routeValue(asked));
    }
    return Optional.empty();
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
    // a tag created or removed changes which names a namespace may be labelled with
    revisions.onChange(() -> names().forEach(listener));
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
    if (!revisions.settled()) {
      // the cluster's revisions and tags are not read yet: no label names entries unseen
      return new Labels(present, present);
    }
    Optional<String> want = wanted(ns, injection, routes, revisions.get());
    return new Labels(want.map(v -> Map.of(KEY, v)).orElse(Map.of()), present);
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
    String value = patch.get(KEY);
    if (value != null) {
      LOG.info("labels: namespace {} labelled {}={}", name, KEY, value);
    } else {
      LOG.info("labels: namespace {} unlabelled {}", name, KEY);
    }
  }

  @Override
  public void failed(String name, KubernetesClientException e, boolean warn) {
    if (warn) {
      LOG.warn("labels: labelling namespace {} failed ({}): {}", name, e.getCode(), e.getMessage());
    }
  }
}
