package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

/** The diff's shortcut for containers that are equal on both sides must never reach the patch. */
class JsonPatchesTest {
  private static final Container A =
      new ContainerBuilder()
          .withName("a")
          .withImage("a:1")
          .addNewEnv()
          .withName("X")
          .withValue("1")
          .endEnv()
          .build();
  private static final Container B = new ContainerBuilder().withName("b").withImage("b:1").build();

  @Test
  void swappedEqualContainersArePatchedInFullNotAsStandIns() throws Exception {
    // each container is equal on both sides, so each is written as a stand-in; with moves left
    // out of patches, the swap turns into replace operations that would carry those stand-ins
    Pod original = pod(A, B);
    Pod swapped = pod(B, A);

    PatchResult patch = JsonPatches.diff(original, swapped);

    assertThat(patch.json()).doesNotContain("\\u0000").contains("\"b:1\"");
    assertThat(PatchTest.applyWithParsson(original, patch.json()))
        .isEqualTo(PodInjector.JSON.valueToTree(swapped));
  }

  @Test
  void anUnchangedPodGivesAnEmptyPatch() {
    assertThat(JsonPatches.diff(pod(A, B), pod(A, B)).isEmpty()).isTrue();
  }

  private static Pod pod(Container... containers) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .withNamespace("shop")
        .endMetadata()
        .withNewSpec()
        .withContainers(containers)
        .endSpec()
        .build();
  }
}
