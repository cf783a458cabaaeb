package io.meshinjector.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.settings.PodLimits;
import io.meshinjector.webhook.support.Reviews;
import org.junit.jupiter.api.Test;

class PodValidationTest {
  private static ObjectNode pod(String json) throws Exception {
    return (ObjectNode) Reviews.JSON.readTree(json);
  }

  @Test
  void theExamplePodHasNoProblem() {
    assertThat(PodValidation.shapeProblem(Reviews.examplePod())).isEmpty();
  }

  @Test
  void nullFieldsAndTheStatusAreLeftAlone() throws Exception {
    // what the API server itself sends: null fields, and a status the engine never reads
    ObjectNode pod =
        pod(
            "{\"metadata\": {\"name\": \"p\", \"creationTimestamp\": null},"
                + " \"spec\": {\"containers\": [{\"name\": \"app\", \"resources\": {}}],"
                + " \"affinity\": null},"
                + " \"status\": {\"conditions\": [null]}}");
    assertThat(PodValidation.shapeProblem(pod)).isEmpty();
  }

  @Test
  void namesTheFirstNullListItemByItsPath() throws Exception {
    ObjectNode pod =
        pod(
            "{\"spec\": {\"containers\": [{\"name\": \"a\"},"
                + " {\"name\": \"b\", \"env\": [{\"name\": \"X\"}, null]}],"
                + " \"tolerations\": [null]}}");
    assertThat(PodValidation.shapeProblem(pod)).contains("spec.containers[1].env[1] is null");
  }

  @Test
  void aNestedListItemIsFoundToo() throws Exception {
    ObjectNode pod =
        pod(
            "{\"spec\": {\"containers\": [{\"name\": \"a\", \"lifecycle\": {\"preStop\":"
                + " {\"exec\": {\"command\": [\"sh\", null]}}}}]}}");
    assertThat(PodValidation.shapeProblem(pod))
        .contains("spec.containers[0].lifecycle.preStop.exec.command[1] is null");
  }

  @Test
  void aContainerWithoutANameIsAProblem() throws Exception {
    assertThat(
            PodValidation.shapeProblem(
                pod("{\"spec\": {\"initContainers\": [{\"image\": \"x\"}]}}")))
        .contains("spec.initContainers[0].name is missing");
  }

  @Test
  void aNullValueInALabelOrSelectorIsAProblem() throws Exception {
    assertThat(PodValidation.shapeProblem(pod("{\"metadata\": {\"labels\": {\"app\": null}}}")))
        .contains("metadata.labels[app] is null");
    assertThat(PodValidation.shapeProblem(pod("{\"spec\": {\"nodeSelector\": {\"pool\": null}}}")))
        .contains("spec.nodeSelector[pool] is null");
  }

  @Test
  void checkNamesALimitBeforeAShapeAndSaysWhichKind() throws Exception {
    PodValidation validation = new PodValidation(new PodLimits(1, 100, 100));
    ObjectNode pod =
        pod("{\"spec\": {\"containers\": [{\"name\": \"a\"}, {\"image\": \"no-name\"}]}}");
    assertThatThrownBy(() -> validation.check(pod))
        .isInstanceOfSatisfying(
            InvalidPod.class,
            e -> {
              assertThat(e.kind()).isEqualTo(InvalidPod.Kind.OVER_A_LIMIT);
              assertThat(Problems.invalidObject(e))
                  .isEqualTo(
                      "request.object is over a limit: spec.containers + spec.initContainers has"
                          + " 2 containers, more than the limit webhook.podLimits.maxContainers = 1");
            });

    PodValidation roomy = new PodValidation(new PodLimits(10, 100, 100));
    assertThatThrownBy(() -> roomy.check(pod))
        .isInstanceOfSatisfying(
            InvalidPod.class,
            e -> {
              assertThat(e.kind()).isEqualTo(InvalidPod.Kind.NOT_A_POD);
              assertThat(Problems.invalidTemplate("shop/Deployment/web", e))
                  .isEqualTo(
                      "shop/Deployment/web: the pod template is not valid:"
                          + " spec.containers[1].name is missing");
            });
    roomy.check(Reviews.examplePod());
  }
}
