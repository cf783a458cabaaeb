package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
    assertThat(Injected.bind(refs.get(0)).getMetadata().getNamespace()).isEqualTo("dflt");
  }

  /**
   * A template without metadata gets it where RFC 6902 adds a new member, last, as the CLI writes
   * it; the namespace the pod was decided in is not written.
   */
  @Test
  void injectingWritesNoNamespaceAndAddsMetadataLast() throws Exception {
    JsonNode doc =
        json(
            "{'kind':'Deployment','metadata':{'name':'w'},'spec':{'replicas':1,"
                + "'template':{'spec':{'containers':[{'name':'app','image':'x'}]}}}}");
    JsonNode out =
        Injected.document(
            doc,
            "shop",
            Fixtures.injector(),
            (w, pod) -> Fixtures.inject(w, PathOption.CNI, ProxyPlacement.NATIVE_SIDECAR, true));

    JsonNode template = out.at("/spec/template");
    assertThat(template.fieldNames()).toIterable().containsExactly("spec", "metadata");
    assertThat(template.path("metadata").has("namespace")).isFalse();
    assertThat(template.at("/metadata/labels/linkerd.io~1workload-ns").asText()).isEqualTo("shop");
    assertThat(out.at("/spec/replicas").asInt()).isEqualTo(1);
    assertThat(doc.at("/spec/template").has("metadata")).as("input untouched").isFalse();
  }

  /** Each kind with its pod template at spec.template and fields of its own around it. */
  static Stream<Arguments> specTemplateKinds() {
    return Stream.of(
        Arguments.of(
            "StatefulSet",
            "apps/v1",
            "'serviceName':'db','podManagementPolicy':'Parallel','selector':{'matchLabels':{'app':'w'}},"
                + "'volumeClaimTemplates':[{'metadata':{'name':'data'},'spec':{'accessModes':"
                + "['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}]",
            "linkerd.io/proxy-statefulset"),
        Arguments.of(
            "DaemonSet",
            "apps/v1",
            "'selector':{'matchLabels':{'app':'w'}},'updateStrategy':{'type':'RollingUpdate',"
                + "'rollingUpdate':{'maxUnavailable':1}},'minReadySeconds':5",
            "linkerd.io/proxy-daemonset"),
        Arguments.of(
            "ReplicaSet",
            "apps/v1",
            "'replicas':3,'selector':{'matchExpressions':[{'key':'app','operator':'In',"
                + "'values':['w']}]}",
            "linkerd.io/proxy-replicaset"),
        Arguments.of(
            "ReplicationController",
            "v1",
            "'replicas':2,'selector':{'app':'w'},'minReadySeconds':0",
            "linkerd.io/proxy-replicationcontroller"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("specTemplateKinds")
  void thePodTemplateOfEachKindIsFoundRenderedAndWrittenBack(
      String kind, String apiVersion, String ownFields, String workloadLabel) throws Exception {
    JsonNode doc =
        json(
            "{'apiVersion':'"
                + apiVersion
                + "','kind':'"
                + kind
                + "','metadata':{'name':'w','namespace':'shop','labels':{'tier':'be'}},"
                + "'spec':{"
                + ownFields
                + ",'template':{'metadata':{'labels':{'app':'w'}},"
                + "'spec':{'containers':[{'name':'app','image':'app:1',"
                + "'ports':[{'containerPort':8080}]}]}}},"
                + "'status':{'observedGeneration':4}}");

    List<WorkloadTemplates.PodTemplateRef> refs = WorkloadTemplates.podTemplates(doc, "dflt");
    assertThat(refs).hasSize(1);
    assertThat(refs.get(0).workload()).isEqualTo("shop/" + kind + "/w");
    assertThat(refs.get(0).template()).isSameAs(doc.at("/spec/template"));

    List<String> seen = new ArrayList<>();
    JsonNode out =
        Injected.document(
            doc,
            "dflt",
            Fixtures.injector(),
            (w, pod) -> {
              seen.add(w);
              assertThat(pod.getSpec().getContainers().get(0).getName()).isEqualTo("app");
              return Fixtures.inject(w, PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true);
            });
    assertThat(seen).containsExactly("shop/" + kind + "/w");

    JsonNode spec = out.at("/spec/template/spec");
    assertThat(spec.at("/initContainers/0/name").asText()).isEqualTo("linkerd-init");
    assertThat(spec.at("/initContainers/1/name").asText()).isEqualTo("linkerd-proxy");
    assertThat(spec.at("/containers/0/name").asText()).isEqualTo("app");
    // The inbound ports come from the template's own containers.
    assertThat(spec.at("/initContainers/1/env").findValuesAsText("value")).contains("8080");
    JsonNode labels = out.at("/spec/template/metadata/labels");
    assertThat(labels.path(workloadLabel).asText()).isEqualTo("w");
    assertThat(labels.path("app").asText()).isEqualTo("w");
    Fixtures.assertValidPod(out.at("/spec/template"), kind);
    // What was written back reads as exactly the pod the injector rendered.
    Pod expected =
        Injected.pod(
            Fixtures.injector(),
            Injected.bind(refs.get(0)),
            Fixtures.inject(
                "shop/" + kind + "/w", PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true));
    assertThat(Injected.bind(WorkloadTemplates.podTemplates(out, "dflt").get(0)))
        .isEqualTo(expected);

    // Everything outside the pod template is as it was read, in the same order.
    ObjectNode before = doc.deepCopy();
    ObjectNode after = out.deepCopy();
    ((ObjectNode) before.get("spec")).remove("template");
    ((ObjectNode) after.get("spec")).remove("template");
    assertThat(after).isEqualTo(before);
    assertThat(Fixtures.JSON.writeValueAsString(after))
        .isEqualTo(Fixtures.JSON.writeValueAsString(before));
    assertThat(out.get("spec").fieldNames())
        .toIterable()
        .containsExactlyElementsOf(doc.get("spec")::fieldNames);
    assertThat(doc.at("/spec/template/spec").has("initContainers")).as("input untouched").isFalse();
  }

  /**
   * The CLI's one way to apply a patch: the template in its document ends as Parsson makes it, and
   * the operations, whose values are the injector's cached renderings, are not written into.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void applyingOperationsToATemplateGivesWhatParssonGives(Cases.Case c) throws Exception {
    PodInjector injector = Fixtures.injector();
    for (JsonNode in : c.inputs()) {
      JsonNode doc = in.deepCopy();
      for (WorkloadTemplates.PodTemplateRef ref : WorkloadTemplates.podTemplates(doc, "")) {
        Pod pod = Injected.bind(ref);
        PatchResult patch = injector.patch(ref.template(), pod, c.decision(ref.workload()));
        String ops = patch.patch().toString();
        JsonNode expected = Injected.applied(ref.template(), patch);

        ref.apply(patch.patch());

        // as text: the renderings may hold a number as a long where a read tree has an int
        assertThat(Fixtures.JSON.writeValueAsString(ref.template()))
            .as("%s, in Parsson's field order", ref.workload())
            .isEqualTo(Fixtures.JSON.writeValueAsString(expected));
        // a later change to the document must not reach the renderings the operations share
        mark(ref.template());
        assertThat(patch.patch().toString())
            .as("the operations are left as they were")
            .isEqualTo(ops);
      }
      assertThat(WorkloadTemplates.podTemplates(doc, "")).isNotEmpty();
    }
  }

  static Stream<Cases.Case> cases() {
    return Cases.all();
  }

  /** Writes a field into every object of {@code node}. */
  private static void mark(JsonNode node) {
    if (node instanceof ObjectNode o) {
      o.put("x-marked", true);
    }
    node.forEach(WorkloadTemplatesTest::mark);
  }
}
