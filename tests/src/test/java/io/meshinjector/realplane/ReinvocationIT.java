package io.meshinjector.realplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.plane.FakeNodes;
import io.meshinjector.plane.RealPlane;
import io.meshinjector.plane.SecondWebhook;
import io.meshinjector.plane.Serve;
import io.meshinjector.plane.ServedRelease;
import io.meshinjector.plane.SharedPlane;
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
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Another mutating webhook, ordered after ours, adds an app container and an app init container,
 * both first in their lists, to pods we injected. The API server reinvokes our webhook (the chart's
 * matchCondition lets such a pod through, and only such a pod), and the created pod has the added
 * containers where an injection puts app containers. Counted by the API server's own {@code
 * apiserver_admission_webhook_admission_duration_seconds_count}: one call for an ordinary pod, two
 * for a pod another webhook added to.
 */
@ResourceLock(SharedPlane.PLANE_LANE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReinvocationIT {
  @RegisterExtension static final RealPlane PLANE = new RealPlane();

  static final String NS = "mesh-injector";
  static final String SHOP = "shop";
  static final String PROXY = "linkerd-proxy";
  static final Map<String, String> ADD = Map.of("second-webhook", "add");

  static Serve serve;
  static SecondWebhook second;
  static KubernetesClient admin;

  @BeforeAll
  static void installBothWebhooks() throws Exception {
    admin = PLANE.admin();
    FakeNodes.createRhel8(admin, Map.of("pool", "rhel"), "rhel-1");
    ServedRelease mi = ServedRelease.install(PLANE, "mi", NS, Duration.ofSeconds(60));
    serve = mi.serve();
    Workloads.optedIn(admin, SHOP, Duration.ofSeconds(20));

    second = SecondWebhook.start();
    // the API server calls webhooks in the order of their configurations' names: after ours
    assertThat("zz-second-webhook").isGreaterThan(mi.release().webhookConfigurationName());
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

  /** A pod as admitted, and the API server's calls to our webhook while it was. */
  record Admitted(Pod pod, double calls) {}

  /** {@link #create}, counting the calls the API server made to our webhook for it. */
  static Admitted admit(String name, Map<String, String> annotations, Map<String, String> labels) {
    double before = AdmissionIT.webhookCalls(admin);
    Pod pod = create(name, annotations, labels);
    double calls = AdmissionIT.webhookCalls(admin) - before;
    System.out.printf("ReinvocationIT: %.0f calls for pod %s%n", calls, name);
    return new Admitted(pod, calls);
  }

  /**
   * A pod another webhook added to, as the reinvocation leaves it: its init containers and
   * containers in these orders, its annotation naming every one of them, the added ones too, and
   * our webhook called twice (the injection, then the reinvocation).
   */
  static void assertReinvoked(
      Admitted admitted, List<String> initContainers, List<String> containers) {
    Pod pod = admitted.pod();
    assertThat(names(pod.getSpec().getInitContainers())).containsExactlyElementsOf(initContainers);
    assertThat(names(pod.getSpec().getContainers())).containsExactlyElementsOf(containers);
    assertThat(pod.getMetadata().getAnnotations().get("mesh-injector.io/injected-containers"))
        .isEqualTo(String.join(",", all(pod)));
    assertThat(admitted.calls()).isEqualTo(2.0);
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
    int secondBefore = second.calls();
    Admitted admitted = admit("native", Map.of(), ADD);

    assertThat(second.calls() - secondBefore).isEqualTo(1);
    // the added init container starts once the redirect is in place and the proxy is up
    assertReinvoked(
        admitted,
        List.of("linkerd-init", PROXY, SecondWebhook.INIT),
        List.of(SecondWebhook.CONTAINER, "app"));
  }

  @Test
  @Order(3)
  void aRegularProxyStaysFirstSoItsHookHoldsTheAddedContainer() {
    Admitted admitted =
        admit("regular", Map.of("mesh-injector.io/native-sidecar", "disabled"), ADD);

    // the app's init containers run before the redirect, with the pod's network as it was
    assertReinvoked(
        admitted,
        List.of(SecondWebhook.INIT, "linkerd-init"),
        List.of(PROXY, SecondWebhook.CONTAINER, "app"));
    Container proxy = admitted.pod().getSpec().getContainers().get(0);
    assertThat(proxy.getLifecycle().getPostStart().getExec().getCommand())
        .as("the proxy-await hook")
        .isNotEmpty();
  }

  @Test
  @Order(4)
  void afterTheReinvocationsOrdinaryPodsAreStillSentOnce() {
    assertThat(admit("plain-after", Map.of(), Map.of()).calls()).isEqualTo(1.0);
    assertThat(serve.log()).contains("completed containers added after injection");
  }
}
