package io.meshinjector.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.meshinjector.webhook.support.Reviews;
import org.junit.jupiter.api.Test;

class PodShapeTest {
  private static ObjectNode pod(String json) throws Exception {
    return (ObjectNode) Reviews.JSON.readTree(json);
  }

  @Test
  void theExamplePodHasNoProblem() {
    assertThat(PodShape.problem(Reviews.examplePod())).isEmpty();
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
    assertThat(PodShape.problem(pod)).isEmpty();
  }

  @Test
  void namesTheFirstNullListItemByItsPath() throws Exception {
    ObjectNode pod =
        pod(
            "{\"spec\": {\"containers\": [{\"name\": \"a\"},"
                + " {\"name\": \"b\", \"env\": [{\"name\": \"X\"}, null]}],"
                + " \"tolerations\": [null]}}");
    assertThat(PodShape.problem(pod)).contains("spec.containers[1].env[1] is null");
  }

  @Test
  void aNestedListItemIsFoundToo() throws Exception {
    ObjectNode pod =
        pod(
            "{\"spec\": {\"containers\": [{\"name\": \"a\", \"lifecycle\": {\"preStop\":"
                + " {\"exec\": {\"command\": [\"sh\", null]}}}}]}}");
    assertThat(PodShape.problem(pod))
        .contains("spec.containers[0].lifecycle.preStop.exec.command[1] is null");
  }

  @Test
  void aContainerWithoutANameIsAProblem() throws Exception {
    assertThat(PodShape.problem(pod("{\"spec\": {\"initContainers\": [{\"image\": \"x\"}]}}")))
        .contains("spec.initContainers[0].name is missing");
  }

  @Test
  void aNullValueInALabelOrSelectorIsAProblem() throws Exception {
    assertThat(PodShape.problem(pod("{\"metadata\": {\"labels\": {\"app\": null}}}")))
        .contains("metadata.labels[app] is null");
    assertThat(PodShape.problem(pod("{\"spec\": {\"nodeSelector\": {\"pool\": null}}}")))
        .contains("spec.nodeSelector[pool] is null");
  }
}
