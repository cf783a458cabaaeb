package io.meshinjector.webhook.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.webhook.support.Parsson;
import org.junit.jupiter.api.Test;

/**
 * The patch is diffed from the typed pod and checked against the tree as received; where the two
 * differ so that the typed patch does not apply, the patch comes from the received tree instead.
 * Applied by Parsson, it must give the rendered pod either way.
 */
class PatchesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Pod pod(String... inits) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("web")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec();
    for (String name : inits) {
      b.editSpec().addNewInitContainer().withName(name).endInitContainer().endSpec();
    }
    return b.build();
  }

  private static Pod rendered(Pod pod) {
    return new PodBuilder(pod)
        .editSpec()
        .addToInitContainers(new ContainerBuilder().withName("proxy").build())
        .endSpec()
        .editMetadata()
        .addToAnnotations("injected", "true")
        .endMetadata()
        .build();
  }

  @Test
  void theTypedPatchIsKeptWhenItAppliesToTheReceivedTree() throws Exception {
    Pod pod = pod("setup");
    JsonNode received = JSON.valueToTree(pod);
    Pod rendered = rendered(pod);

    ArrayNode patch = InjectionPipeline.Patches.between(JSON, received, pod, rendered);

    assertThat(patch.toString()).contains("/spec/initContainers/1");
    assertThat(Parsson.apply(patch, received)).isEqualTo(JSON.valueToTree(rendered));
  }

  @Test
  void theReceivedTreeIsDiffedWhenTheTypedPatchDoesNotApplyToIt() throws Exception {
    // received without the init container the typed pod has: "add /spec/initContainers/1" would
    // fail on it, as it would in the API server
    Pod typed = pod("setup");
    JsonNode received = JSON.valueToTree(pod());
    Pod rendered = rendered(typed);

    ArrayNode patch = InjectionPipeline.Patches.between(JSON, received, typed, rendered);

    assertThat(PatchCheck.applies(patch, received)).isTrue();
    assertThat(Parsson.apply(patch, received)).isEqualTo(JSON.valueToTree(rendered));
  }
}
