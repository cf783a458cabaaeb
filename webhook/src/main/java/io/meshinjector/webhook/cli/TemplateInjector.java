package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.revisions.RevisionConfig;
import io.meshinjector.engine.revisions.Route;
import io.meshinjector.engine.revisions.RouteResolver;
import io.meshinjector.templates.WorkloadTemplates;
import io.meshinjector.templates.WorkloadTemplates.PodTemplateRef;
import io.meshinjector.webhook.admission.InjectionPipeline;
import io.meshinjector.webhook.admission.InvalidPod;
import io.meshinjector.webhook.admission.PodAdmission;
import io.meshinjector.webhook.admission.Problems;
import io.meshinjector.webhook.admission.Staleness;
import io.meshinjector.webhook.cli.snapshot.AssumeEnabledNamespaces;
import io.meshinjector.webhook.manifest.ManifestException;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the webhook's decision path over the pod templates of manifest documents, for {@code inject}
 * and {@code explain}.
 */
final class TemplateInjector {
  private final PodAdmission admission;
  private final ClusterView view;
  private final String defaultNamespace;
  private final String revision;
  private final RouteResolver routes;

  TemplateInjector(MeshConfig config, ClusterView files, String defaultNamespace, Clock clock) {
    this.view = new AssumeEnabledNamespaces(files);
    // the CLI binds and decides but never admits: nothing is counted, and no view goes stale
    this.admission =
        PodAdmission.from(
            config,
            clock,
            () -> view,
            new AdmissionMetrics(new SimpleMeterRegistry()),
            Staleness.never());
    this.defaultNamespace = defaultNamespace;
    this.revision = RevisionConfig.from(config).name();
    this.routes = RouteResolver.of(config.engine().injection());
  }

  /** The pod templates of {@code doc}, objects that name no namespace in the default one. */
  List<PodTemplateRef> templates(JsonNode doc) {
    return WorkloadTemplates.podTemplates(doc, defaultNamespace);
  }

  /**
   * The decision for one template and, when it is injected, the patch for it: the webhook's checks,
   * binding and decision path, so a template the webhook would answer with a 400 is refused here
   * with the same words.
   */
  InjectionPipeline.Result decide(PodTemplateRef t) {
    Pod pod;
    try {
      pod = admission.bind(t.template(), t.namespace());
    } catch (InvalidPod e) {
      throw new ManifestException(Problems.invalidTemplate(t.workload(), e));
    }
    return admission.decide(t.workload(), t.template(), pod, view);
  }

  /**
   * The revision that would inject the template's pods, as the webhook routes them: the pod's
   * {@code mesh-injector.io/rev}, else its namespace's, else the default tag, through the view's
   * revisions and tags.
   */
  Route route(PodTemplateRef t) {
    Map<String, String> annotations = new HashMap<>();
    t.template()
        .path("metadata")
        .path("annotations")
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getValue().isTextual()) {
                annotations.put(e.getKey(), e.getValue().asText());
              }
            });
    return routes.route(
        annotations, view.namespace(t.namespace()).orElse(null), view.revisions(), revision);
  }

  static String describe(Decision d) {
    return d.workload() + ": " + d.reason().orElse(d.summary());
  }
}
