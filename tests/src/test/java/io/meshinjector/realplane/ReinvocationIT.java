package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.KubePlane;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.Release;
import io.meshinjector.plane.SecondWebhook;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Another mutating webhook, ordered after ours, adds an app container and an app init container,
 * both first in their lists, to pods we injected. The API server reinvokes our webhook (the chart's
 * matchCondition lets such a pod through, and only such a pod), and the created pod has the added
 * containers where an injection puts app containers. Counted by the API server's own {@code
 * apiserver_admission_webhook_admission_duration_seconds_count}: one call for an ordinary pod, two
 * for a pod another webhook added to.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReinvocationIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String SHOP = "shop";
  static final String PROXY = "linkerd-proxy";
  static final Map<String, String> ADD = Map.of("second-webhook", "add");

  static Release release;
  static Serve serve;
  static SecondWebhook second;
  static KubernetesClient admin;

  @BeforeAll
  static void installBothWebhooks() throws Exception {
    KubePlane plane = PLANE.plane();
    admin = plane.admin();
    FakeNodes.create(
        admin, "rhel-1", FakeNodes.Shape.of(FakeNodes.RHEL8, "v1.32.6", Map.of("pool", "rhel")));
    int port = KubePlane.freePort();
    release = Release.install(plane, "mi", NS, Release.urlValue(port));
    serve = release.replica("replica", PLANE.dir("replica"), port);
    serve.start().awaitReady(Duration.ofSeconds(60));
    Workloads.namespace(admin, SHOP, Map.of("inject", "enabled"), Map.of());
    Workloads.awaitInjectionLabel(admin, SHOP, Duration.ofSeconds(20));

    second = SecondWebhook.start();
    // the API server calls webhooks in the order of their configurations' names: after ours
    assertThat("zz-second-webhook").isGreaterThan(release.webhookConfigurationName());
    MutatingWebhookConfiguration config =
        new MutatingWebhookConfigurationBuilder()
            .withNewMetadata()
            .withName("zz-second-webhook")
            .endMetadata()
            .addNewWebhook()
            .withName("add.second.test")
            .withAdmissionReviewVersions("v1")
            .withSideEffects("None")
            .withFailurePolicy("Fail")
            .withReinvocationPolicy("Never")
            .withTimeoutSeconds(10)
            .withNewClientConfig()
            .withUrl(second.url())
            .withCaBundle(second.caBundle())
            .endClientConfig()
            .addNewRule()
            .withOperations("CREATE")
            .withApiGroups("")
            .withApiVersions("v1")
            .withResources("pods")
            .withScope("Namespaced")
            .endRule()
            .withNewObjectSelector()
            .withMatchLabels(ADD)
            .endObjectSelector()
            .endWebhook()
            .build();
    admin.admissionRegistration().v1().mutatingWebhookConfigurations().resource(config).create();
  }

  @AfterAll
  static void stop() {
    if (second != null) {
      second.close();
    }
    if (serve != null) {
      serve.close();
    }
  }

  /** Creates the pod, which the API server answers with the pod as admitted. */
  static Pod create(String name, Map<String, String> annotations, Map<String, String> labels) {
    Pod pod = Workloads.pod(name, annotations, Workloads.appSpec(Map.of()));
    pod.getMetadata().getLabels().putAll(labels);
    return admin.pods().inNamespace(SHOP).resource(pod).create();
  }

  static List<String> names(List<Container> containers) {
    return containers == null ? List.of() : containers.stream().map(Container::getName).toList();
  }

  static List<String> all(Pod pod) {
    List<String> out = new ArrayList<>(names(pod.getSpec().getInitContainers()));
    out.addAll(names(pod.getSpec().getContainers()));
    return out;
  }

  @Test
  @Order(1)
  void anOrdinaryPodIsSentOnce() {
    double before = AdmissionIT.webhookCalls(admin);
    for (int i = 0; i < 5; i++) {
      Pod pod = create("plain-" + i, Map.of(), Map.of());
      assertThat(all(pod)).contains(PROXY, "app");
    }
    double calls = AdmissionIT.webhookCalls(admin) - before;
    System.out.printf("ReinvocationIT: %.0f calls for 5 ordinary pods%n", calls);
    assertThat(calls).isEqualTo(5.0);
    assertThat(second.calls()).isZero();
  }

  @Test
  @Order(2)
  void aNativeSidecarPodGetsTheAddedInitContainerAfterTheProxy() {
    double before = AdmissionIT.webhookCalls(admin);
    int secondBefore = second.calls();
    Pod pod = create("native", Map.of(), ADD);
    double calls = AdmissionIT.webhookCalls(admin) - before;
    System.out.printf("ReinvocationIT: %.0f calls for the native-sidecar pod%n", calls);

    assertThat(second.calls() - secondBefore).isEqualTo(1);
    // the added init container starts once the redirect is in place and the proxy is up
    assertThat(names(pod.getSpec().getInitContainers()))
        .containsExactly("linkerd-init", PROXY, SecondWebhook.INIT);
    assertThat(names(pod.getSpec().getContainers()))
        .containsExactly(SecondWebhook.CONTAINER, "app");
    assertThat(pod.getMetadata().getAnnotations().get("mesh-injector.io/injected-containers"))
        .isEqualTo(String.join(",", all(pod)));
    assertThat(calls).isEqualTo(2.0);
  }

  @Test
  @Order(3)
  void aRegularProxyStaysFirstSoItsHookHoldsTheAddedContainer() {
    double before = AdmissionIT.webhookCalls(admin);
    Pod pod = create("regular", Map.of("mesh-injector.io/native-sidecar", "disabled"), ADD);
    double calls = AdmissionIT.webhookCalls(admin) - before;
    System.out.printf("ReinvocationIT: %.0f calls for the regular-proxy pod%n", calls);

    List<Container> containers = pod.getSpec().getContainers();
    assertThat(names(containers)).containsExactly(PROXY, SecondWebhook.CONTAINER, "app");
    assertThat(containers.get(0).getLifecycle().getPostStart().getExec().getCommand())
        .as("the proxy-await hook")
        .isNotEmpty();
    // the app's init containers run before the redirect, with the pod's network as it was
    assertThat(names(pod.getSpec().getInitContainers()))
        .containsExactly(SecondWebhook.INIT, "linkerd-init");
    assertThat(pod.getMetadata().getAnnotations().get("mesh-injector.io/injected-containers"))
        .isEqualTo(String.join(",", all(pod)));
    assertThat(calls).isEqualTo(2.0);
  }

  @Test
  @Order(4)
  void afterTheReinvocationsOrdinaryPodsAreStillSentOnce() {
    double before = AdmissionIT.webhookCalls(admin);
    create("plain-after", Map.of(), Map.of());
    assertThat(AdmissionIT.webhookCalls(admin) - before).isEqualTo(1.0);
    assertThat(serve.log()).contains("completed containers added after injection");
  }
}
