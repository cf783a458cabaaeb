package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadTemplatesTest {
  private static JsonNode json(String s) throws Exception {
    return Fixtures.JSON.readTree(s.replace('\'', '"'));
  }

  @Test
  void workloadsTakeTheirNamespaceFromTheObjectElseTheListElseTheDefault() throws Exception {
    JsonNode list =
        json(
            "{'kind':'List','metadata':{'namespace':'outer'},'items':["
                + "{'kind':'Pod','metadata':{'name':'a','namespace':'own'},'spec':{}},"
                + "{'kind':'Job','metadata':{'generateName':'b-'},'spec':{'template':{'spec':{}}}},"
                + "{'kind':'ConfigMap','metadata':{'name':'c'}}]}");
    JsonNode cron =
        json(
            "{'kind':'CronJob','metadata':{'name':'d'},"
                + "'spec':{'jobTemplate':{'spec':{'template':{'spec':{}}}}}}");

    assertThat(WorkloadTemplates.podTemplates(list, "dflt"))
        .extracting(WorkloadTemplates.PodTemplateRef::workload)
        .containsExactly("own/Pod/a", "outer/Job/b-");
    List<WorkloadTemplates.PodTemplateRef> refs = WorkloadTemplates.podTemplates(cron, "dflt");
    assertThat(refs)
        .extracting(WorkloadTemplates.PodTemplateRef::workload)
        .containsExactly("dflt/CronJob/d");
    assertThat(refs.get(0).toPod().getMetadata().getNamespace()).isEqualTo("dflt");
  }

  @Test
  void injectingWritesNoNamespaceAndPutsNewMetadataBeforeSpec() throws Exception {
    JsonNode doc =
        json(
            "{'kind':'Deployment','metadata':{'name':'w'},'spec':{'replicas':1,"
                + "'template':{'spec':{'containers':[{'name':'app','image':'x'}]}}}}");
    JsonNode out =
        WorkloadTemplates.inject(
            doc,
            "shop",
            Fixtures.injector(),
            (w, pod) -> Fixtures.inject(w, PathOption.CNI, ProxyPlacement.NATIVE_SIDECAR, true));

    JsonNode template = out.at("/spec/template");
    assertThat(template.fieldNames()).toIterable().containsExactly("metadata", "spec");
    assertThat(template.path("metadata").has("namespace")).isFalse();
    assertThat(template.at("/metadata/labels/linkerd.io~1workload-ns").asText()).isEqualTo("shop");
    assertThat(out.at("/spec/replicas").asInt()).isEqualTo(1);
    assertThat(doc.at("/spec/template").has("metadata")).as("input untouched").isFalse();
  }

  @Test
  void aTemplateThatIsNoPodIsRefusedNamingTheWorkload() throws Exception {
    JsonNode doc = json("{'kind':'Pod','metadata':{'name':'p'},'spec':{'containers':'nope'}}");
    WorkloadTemplates.PodTemplateRef ref = WorkloadTemplates.podTemplates(doc, "ns").get(0);
    assertThatThrownBy(ref::toPod)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("ns/Pod/p: the pod template is not valid: ");
  }
}
