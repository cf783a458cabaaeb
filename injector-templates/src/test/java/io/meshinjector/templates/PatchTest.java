package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.decision.Decision;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every patch, applied by an independent implementation (Eclipse Parsson), gives a valid injected
 * pod, whatever shape the API server sent the pod in.
 */
class PatchTest {
  private static final PodInjector INJECTOR = Fixtures.injector();

  static Stream<Cases.Case> cases() {
    return Cases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void parssonAppliesThePatchToAValidInjectedPod(Cases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod original = pods.get(i);
      Decision decision = c.decision(workloads.get(i));
      JsonNode received = Fixtures.JSON.valueToTree(original);
      JsonNode before = received.deepCopy();
      PatchResult patch = INJECTOR.patch(received, original, decision);

      JsonNode applied = Injected.applied(received, patch);

      assertThat(received).as("the received tree is read, not written").isEqualTo(before);
      Pod strict = Fixtures.assertValidPod(applied, c + " " + workloads.get(i));
      if (c.injects()) {
        assertThat(Injected.hasContainer(strict, Fixtures.PROXY)).as(workloads.get(i)).isTrue();
      } else {
        assertThat(applied).as("%s: left as received", workloads.get(i)).isEqualTo(received);
      }
      assertThat(INJECTOR.patch(applied, strict, decision).patch().isEmpty())
          .as("%s: injected once", workloads.get(i))
          .isTrue();
    }
  }

  /**
   * The API server's tree can differ from what the typed pod serialises to: maps and lists that are
   * null or absent where the model has empty ones, fields the model does not know. The patch is
   * made against the tree as received, so it applies to each of these, and gives the same pod.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("receivedShapes")
  void thePatchAppliesToThePodAsReceived(String shape, String pointer, JsonNode value)
      throws Exception {
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    Pod typed = c.pods().get(0);
    ObjectNode received = Fixtures.JSON.valueToTree(typed);
    JsonNode parent = received.at(pointer.substring(0, pointer.lastIndexOf('/')));
    String member = pointer.substring(pointer.lastIndexOf('/') + 1);
    if (value == null) {
      ((ObjectNode) parent).remove(member);
    } else {
      ((ObjectNode) parent).set(member, value);
    }
    Pod pod = Fixtures.JSON.treeToValue(received, Pod.class);
    Decision decision = c.decision(c.workloads().get(0));

    PatchResult patch = INJECTOR.patch(received, pod, decision);
    JsonNode applied = Injected.applied(received, patch.patch().toString());

    Pod expected = Injected.pod(INJECTOR, pod, decision);
    assertThat(Fixtures.JSON.treeToValue(applied, Pod.class)).as(shape).isEqualTo(expected);
    if (value != null && !value.isNull() && !value.isContainerNode()) {
      assertThat(applied.at(pointer)).as("%s kept", shape).isEqualTo(value);
    }
  }

  static Stream<Arguments> receivedShapes() {
    ObjectNode unknown = Fixtures.JSON.createObjectNode().put("x-vendor", "kept");
    return Stream.of(
        Arguments.of("labels null", "/metadata/labels", NullNode.getInstance()),
        Arguments.of("labels absent", "/metadata/labels", null),
        Arguments.of("annotations null", "/metadata/annotations", NullNode.getInstance()),
        Arguments.of("annotations absent", "/metadata/annotations", null),
        Arguments.of("initContainers null", "/spec/initContainers", NullNode.getInstance()),
        Arguments.of(
            "initContainers empty", "/spec/initContainers", Fixtures.JSON.createArrayNode()),
        Arguments.of("volumes null", "/spec/volumes", NullNode.getInstance()),
        Arguments.of("volumes absent", "/spec/volumes", null),
        Arguments.of("affinity null", "/spec/affinity", NullNode.getInstance()),
        Arguments.of("affinity absent", "/spec/affinity", null),
        Arguments.of("affinity without nodeAffinity", "/spec/affinity", unknown),
        Arguments.of("an unknown spec field", "/spec/x-vendor", TextNode.valueOf("kept")),
        Arguments.of("an unknown metadata field", "/metadata/x-vendor", TextNode.valueOf("kept")));
  }

  /**
   * A rendered pod shares what it does not change with the original and with the cached template
   * renderings: rendering must write into neither. Each pod is rendered twice, the second time
   * after the first result was rendered from, and the original must serialise as before.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void renderingChangesNeitherTheOriginalNorTheNextRendering(Cases.Case c) throws Exception {
    List<Pod> pods = c.pods();
    List<String> workloads = c.workloads();
    for (int i = 0; i < pods.size(); i++) {
      Pod original = pods.get(i);
      String before = Fixtures.JSON.writeValueAsString(original);
      Pod first = Injected.pod(INJECTOR, original, c.decision(workloads.get(i)));
      String firstJson = Fixtures.JSON.writeValueAsString(first);
      Pod second = Injected.pod(INJECTOR, original, c.decision(workloads.get(i)));

      assertThat(Fixtures.JSON.writeValueAsString(original)).isEqualTo(before);
      assertThat(Fixtures.JSON.writeValueAsString(second)).isEqualTo(firstJson);
      assertThat(Fixtures.JSON.writeValueAsString(first)).isEqualTo(firstJson);
    }
  }

  @Test
  void aFieldTypoInATemplateFailsTheStrictCheck() throws Exception {
    // fabric8 keeps the misspelt field in the SecurityContext's additionalProperties and writes it
    // back out, so only a check that looks below the Pod itself can see it.
    String proxy =
        Fixtures.resource("io/meshinjector/templates/proxy.yaml")
            .replace("readOnlyRootFilesystem:", "readOnlyRootFileSystem:");
    String config =
        Fixtures.YAML_OUT.writeValueAsString(Map.of("templates", Map.of("proxy", proxy)));
    PodInjector typo = new PodInjector(TemplateConfig.from(ConfigLoader.fromYaml(config)));
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("pod-container-legacy")).findFirst().orElseThrow();
    Pod original = c.pods().get(0);
    JsonNode applied =
        Injected.applied(
            original,
            Fixtures.patch(typo, original, c.decision(c.workloads().get(0))).patch().toString());

    assertThat(Fixtures.JSON.treeToValue(applied, Pod.class).getAdditionalProperties())
        .as("the Pod's own additionalProperties do not show it")
        .isEmpty();
    assertThatThrownBy(() -> Fixtures.assertValidPod(applied, "typo"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("readOnlyRootFileSystem");

    // The same pod rendered with the template as shipped passes.
    Pod good = Injected.pod(INJECTOR, original, c.decision(c.workloads().get(0)));
    Fixtures.assertValidPod(Fixtures.JSON.valueToTree(good), "shipped");
  }

  @Test
  void managedFieldsContentIsFreeFormButFieldsAroundItAreNot() throws Exception {
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    ObjectNode pod = Fixtures.JSON.valueToTree(c.pods().get(0));
    assertThat(pod.at("/metadata/managedFields/0/fieldsV1").isEmpty()).isFalse();
    Fixtures.assertValidPod(pod, "with managedFields");

    ((ObjectNode) pod.at("/metadata/managedFields/0")).put("operaton", "Update");
    assertThatThrownBy(() -> Fixtures.assertValidPod(pod, "typo in managedFields"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("operaton");
  }

  @Test
  void annotationKeysWithSlashesAreEscaped() {
    // This pod already has annotations, so ours are added one key at a time.
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    Pod original = c.pods().get(0);
    PatchResult patch = Fixtures.patch(INJECTOR, original, c.decision(c.workloads().get(0)));
    assertThat(patch.patch().toString())
        .contains("\"/metadata/annotations/mesh-injector.io~1decision\"")
        .contains("\"/metadata/labels/linkerd.io~1control-plane-ns\"")
        .doesNotContain("\"/metadata/annotations/mesh-injector.io/decision\"");
  }

  @Test
  void nothingChangedIsAnEmptyPatch() {
    Pod pod = Cases.all().findFirst().orElseThrow().pods().get(0);
    PatchResult patch = Fixtures.patch(INJECTOR, pod, Fixtures.skip("emojivoto/Deployment/web"));
    assertThat(patch.patch().isEmpty()).isTrue();
    assertThat(patch.patch().toString()).isEqualTo("[]");
  }

  @Test
  void patchIsRelativeToTheFullOriginalWithManagedFields() throws Exception {
    Cases.Case c =
        Cases.all().filter(x -> x.name().equals("affinity-native-cni")).findFirst().orElseThrow();
    Pod original = c.pods().get(0);
    assertThat(original.getMetadata().getManagedFields()).isNotEmpty();
    PatchResult patch = Fixtures.patch(INJECTOR, original, c.decision(c.workloads().get(0)));
    assertThat(patch.patch().toString()).doesNotContain("managedFields");
    JsonNode applied = Injected.applied(original, patch.patch().toString());
    assertThat(applied.at("/metadata/managedFields"))
        .isEqualTo(Fixtures.JSON.valueToTree(original).at("/metadata/managedFields"));
  }
}
