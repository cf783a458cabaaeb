package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.zjsonpatch.JsonPatch;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.webhook.cluster.AssumeEnabledNamespaces;
import io.meshinjector.webhook.manifest.ManifestException;
import io.meshinjector.webhook.manifest.Manifests;
import io.meshinjector.webhook.manifest.PodTemplates;
import io.meshinjector.webhook.mutation.InjectionPipeline;
import io.meshinjector.webhook.mutation.Mutators;
import java.time.Clock;

/**
 * Runs the webhook's decision path over the pod templates of manifest documents, for {@code inject}
 * and {@code explain}.
 */
final class TemplateInjector {
  private final InjectionPipeline pipeline;
  private final ClusterView view;
  private final String defaultNamespace;
  private final ObjectMapper mapper = Manifests.json();

  TemplateInjector(MeshConfig config, ClusterView files, String defaultNamespace, Clock clock) {
    this.pipeline =
        new InjectionPipeline(
            new RuleEngine(config.engine(), clock), Mutators.forConfig(config), mapper);
    this.view = new AssumeEnabledNamespaces(files);
    this.defaultNamespace = defaultNamespace;
  }

  /** The decision for one template and, when it is injected, the patch for it. */
  InjectionPipeline.Result decide(PodTemplates.Template t) {
    Pod pod;
    try {
      pod = mapper.treeToValue(t.template(), Pod.class);
    } catch (Exception e) {
      throw new ManifestException(
          t.workload(defaultNamespace)
              + ": the pod template is not valid: "
              + e.getMessage().lines().findFirst().orElse(""));
    }
    ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
    pod.setMetadata(meta);
    String namespace = t.namespace() == null ? defaultNamespace : t.namespace();
    meta.setNamespace(namespace);
    return pipeline.run(t.workload(defaultNamespace), t.template(), pod, view);
  }

  /** Applies {@code result}'s patch to the template in its document; the rest stays as read. */
  static void apply(PodTemplates.Template t, InjectionPipeline.Result result) {
    if (result.patch().isEmpty()) {
      return;
    }
    JsonNode patched = JsonPatch.apply(result.patch(), t.template());
    ObjectNode template = t.template();
    template.removeAll();
    template.setAll((ObjectNode) patched);
  }

  static String describe(Decision d) {
    return d.workload() + ": " + d.reason().orElse(d.summary());
  }
}
