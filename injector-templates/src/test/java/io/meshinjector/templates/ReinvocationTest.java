package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.PathOption;
import io.meshinjector.engine.decision.ProxyPlacement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A later mutating webhook adds containers to a pod we injected, and the API server sends it back:
 * the added containers are laid out as an injection lays out app containers, the patch applies (by
 * Parsson) to the pod as sent, and a further call changes nothing.
 */
class ReinvocationTest {
  private static final PodInjector INJECTOR = Fixtures.injector();
  private static final String PROXY = Fixtures.linkerdTestConfig().proxyContainerName();

  private static Pod app() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace("shop")
        .endMetadata()
        .withNewSpec()
        .addNewInitContainer()
        .withName("migrate")
        .withImage("migrate")
        .endInitContainer()
        .addNewContainer()
        .withName("web")
        .withImage("web")
        .endContainer()
        .endSpec()
        .build();
  }

  private static Pod injected(ProxyPlacement placement) {
    Pod once =
        Injected.pod(
            INJECTOR, app(), Fixtures.inject("shop/Pod/web", PathOption.INIT_NFT, placement, true));
    assertThat(once.getMetadata().getAnnotations()).containsKey(PodInjector.INJECTED_CONTAINERS);
    return once;
  }

  /** What the test's second webhook does: one container and one init container, both first. */
  private static Pod withPrepended(Pod pod) {
    Pod out = new PodBuilder(pod).build();
    List<Container> inits = new ArrayList<>(out.getSpec().getInitContainers());
    inits.add(0, new ContainerBuilder().withName("added-init").withImage("x").build());
    List<Container> containers = new ArrayList<>(out.getSpec().getContainers());
    containers.add(0, new ContainerBuilder().withName("added").withImage("x").build());
    out.getSpec().setInitContainers(inits);
    out.getSpec().setContainers(containers);
    return out;
  }

  private static List<String> names(List<Container> containers) {
    return containers.stream().map(Container::getName).toList();
  }

  @Test
  void theAnnotationListsEveryContainerOfTheInjectedPod() {
    Pod once = injected(ProxyPlacement.NATIVE_SIDECAR);
    assertThat(once.getMetadata().getAnnotations().get(PodInjector.INJECTED_CONTAINERS))
        .isEqualTo("linkerd-init," + PROXY + ",migrate,web");
  }

  @Test
  void aNativeSidecarPodGetsItsAddedInitContainerAfterTheProxy() throws Exception {
    Pod sent = withPrepended(injected(ProxyPlacement.NATIVE_SIDECAR));
    Pod completed = Injected.completed(INJECTOR, sent);

    assertThat(names(completed.getSpec().getInitContainers()))
        .containsExactly("linkerd-init", PROXY, "added-init", "migrate");
    // a regular container starts after every init container, the proxy among them
    assertThat(names(completed.getSpec().getContainers())).containsExactly("added", "web");
    assertThat(completed.getMetadata().getAnnotations().get(PodInjector.INJECTED_CONTAINERS))
        .isEqualTo("linkerd-init," + PROXY + ",added-init,migrate,added,web");
    assertPatchAppliesAndSettles(sent, completed);
  }

  @Test
  void aRegularProxyStaysFirstAndTheRedirectLast() throws Exception {
    Pod once = injected(ProxyPlacement.CONTAINER);
    Pod sent = withPrepended(once);
    sent.getSpec().getInitContainers().add(new ContainerBuilder().withName("late").build());
    Pod completed = Injected.completed(INJECTOR, sent);

    // the proxy's postStart hook holds the app only for containers after it
    assertThat(names(completed.getSpec().getContainers())).containsExactly(PROXY, "added", "web");
    assertThat(completed.getSpec().getContainers().get(0).getLifecycle().getPostStart())
        .isNotNull();
    // app init containers run before the redirect, with the pod's network as it was
    assertThat(names(completed.getSpec().getInitContainers()))
        .containsExactly("added-init", "migrate", "late", "linkerd-init");
    assertPatchAppliesAndSettles(sent, completed);
  }

  @Test
  void aPodWithNothingAddedIsLeftAsItIs() {
    Pod once = injected(ProxyPlacement.CONTAINER);
    assertNothingToComplete(once);
    // nothing of ours, or injected by something else: not ours to complete
    Pod plain = withPrepended(app());
    assertNothingToComplete(plain);
    Pod foreign = withPrepended(once);
    foreign.getMetadata().getAnnotations().remove(PodInjector.INJECTED_CONTAINERS);
    assertNothingToComplete(foreign);
  }

  @Test
  void renderingAnInjectedPodStillChangesNothing() {
    Pod once = injected(ProxyPlacement.NATIVE_SIDECAR);
    Decision again =
        Fixtures.inject("shop/Pod/web", PathOption.INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true);
    assertThat(Injected.pod(INJECTOR, once, again)).isEqualTo(once);
    assertThat(Fixtures.patch(INJECTOR, once, again).patch().isEmpty()).isTrue();
  }

  private static void assertPatchAppliesAndSettles(Pod sent, Pod completed) throws Exception {
    Fixtures.assertValidPod(Fixtures.JSON.valueToTree(completed), "completed");
    // the pod as patched is sent again once more at most, and then nothing changes
    assertNothingToComplete(completed);
  }

  private static void assertNothingToComplete(Pod pod) {
    assertThat(INJECTOR.completion(Fixtures.JSON.valueToTree(pod), pod).patch().isEmpty()).isTrue();
    assertThat(Injected.completed(INJECTOR, pod)).isEqualTo(pod);
  }
}
