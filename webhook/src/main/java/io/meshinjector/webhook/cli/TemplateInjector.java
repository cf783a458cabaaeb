package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.zjsonpatch.JsonPatch;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.templates.WorkloadTemplates;
import io.meshinjector.templates.WorkloadTemplates.PodTemplateRef;
import io.meshinjector.webhook.cluster.AssumeEnabledNamespaces;
import io.meshinjector.webhook.manifest.ManifestException;
import io.meshinjector.webhook.mutation.InjectionPipeline;
import io.meshinjector.webhook.mutation.Mutators;
import io.meshinjector.webhook.mutation.PodShape;
import java.time.Clock;
import java.util.List;

/**
 * Runs the webhook's decision path over the pod templates of manifest documents, for {@code inject}
 * and {@code explain}.
 */
final class TemplateInjector {
  private final InjectionPipeline pipeline;
  private final ClusterView view;
  private final String defaultNamespace;

  TemplateInjector(MeshConfig config, ClusterView files, String defaultNamespace, Clock clock) {
    this.pipeline =
        new InjectionPipeline(new RuleEngine(config.engine(), clock), Mutators.forConfig(config));
    this.view = new AssumeEnabledNamespaces(files);
    this.defaultNamespace = defaultNamespace;
  }

  /** The pod templates of {@code doc}, objects that name no namespace in the default one. */
  List<PodTemplateRef> templates(JsonNode doc) {
    return WorkloadTemplates.podTemplates(doc, defaultNamespace);
  }

  /** The decision for one template and, when it is injected, the patch for it. */
  InjectionPipeline.Result decide(PodTemplateRef t) {
    // the same shapes the webhook answers with a 400, named the same way
    PodShape.problem(t.template())
        .ifPresent(
            p -> {
              throw new ManifestException(t.workload() + ": the pod template is not valid: " + p);
            });
    Pod pod;
    try {
      pod = t.toPod();
    } catch (IllegalArgumentException e) {
      throw new ManifestException(e.getMessage());
    }
    return pipeline.run(t.workload(), t.template(), pod, view);
  }

  /** Applies {@code result}'s patch to the template in its document; the rest stays as read. */
  static void apply(PodTemplateRef t, InjectionPipeline.Result result) {
    if (result.patch().isEmpty()) {
      return;
    }
    // a copy: the patch's values are the injector's cached renderings
    JsonNode patched = JsonPatch.apply(result.patch().deepCopy(), t.template());
    ObjectNode template = t.template();
    template.removeAll();
    template.setAll((ObjectNode) patched);
  }

  static String describe(Decision d) {
    return d.workload() + ": " + d.reason().orElse(d.summary());
  }
}
