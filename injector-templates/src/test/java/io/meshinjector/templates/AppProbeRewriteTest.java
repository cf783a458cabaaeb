package io.meshinjector.templates;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.meshinjector.templates.internal.AppProbeRewrite;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The app's probes pointed at Istio's agent, and the originals it is handed. */
class AppProbeRewriteTest {
  private static final AppProbeRewrite ISTIO =
      new AppProbeRewrite(
          15020,
          "/app-health/{container}/{probe}z",
          "/app-lifecycle/{container}/{hook}z",
          "istio-proxy");

  private static Container app() {
    return new ContainerBuilder()
        .withName("web")
        .addNewPort()
        .withName("http")
        .withContainerPort(8080)
        .endPort()
        .withNewLivenessProbe()
        .withNewHttpGet()
        .withPath("/live")
        .withPort(new IntOrString("http"))
        .withScheme("HTTPS")
        .addNewHttpHeader()
        .withName("X-A")
        .withValue("b")
        .endHttpHeader()
        .endHttpGet()
        .withTimeoutSeconds(5)
        .withPeriodSeconds(7)
        .endLivenessProbe()
        .withNewReadinessProbe()
        .withNewGrpc()
        .withPort(9090)
        .endGrpc()
        .endReadinessProbe()
        .withNewStartupProbe()
        .withNewTcpSocket()
        .withPort(new IntOrString(5432))
        .endTcpSocket()
        .endStartupProbe()
        .build();
  }

  @Test
  void httpGrpcAndTcpProbesGoToTheAgentAndTheOriginalsAreHandedOver() {
    Container original = app();
    PodSpec spec = new PodSpecBuilder().withContainers(original).build();
    String probers = ISTIO.apply(spec);

    Container c = spec.getContainers().get(0);
    assertThat(c).isNotSameAs(original);
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/app-health/web/livez");
    assertThat(c.getLivenessProbe().getHttpGet().getPort()).isEqualTo(new IntOrString(15020));
    // the agent speaks plain HTTP; the app's other settings stay
    assertThat(c.getLivenessProbe().getHttpGet().getScheme()).isEqualTo("HTTP");
    assertThat(c.getLivenessProbe().getHttpGet().getHttpHeaders()).hasSize(1);
    assertThat(c.getLivenessProbe().getPeriodSeconds()).isEqualTo(7);
    assertThat(c.getReadinessProbe().getGrpc()).isNull();
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/app-health/web/readyz");
    assertThat(c.getStartupProbe().getTcpSocket()).isNull();
    assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/app-health/web/startupz");
    // the original container is shared with the caller's pod and untouched
    assertThat(original.getLivenessProbe().getHttpGet().getPort())
        .isEqualTo(new IntOrString("http"));

    assertThat(probers)
        .isEqualTo(
            "{\"/app-health/web/livez\":{\"httpGet\":{\"path\":\"/live\",\"port\":8080,"
                + "\"scheme\":\"HTTPS\",\"httpHeaders\":[{\"name\":\"X-A\",\"value\":\"b\"}]},"
                + "\"timeoutSeconds\":5},"
                + "\"/app-health/web/readyz\":{\"grpc\":{\"port\":9090,\"service\":null}},"
                + "\"/app-health/web/startupz\":{\"tcpSocket\":{\"port\":5432}}}");
  }

  @Test
  void execProbesTheProxyItselfAndPodsWithoutProbesStay() {
    Container exec =
        new ContainerBuilder()
            .withName("job")
            .withNewReadinessProbe()
            .withNewExec()
            .withCommand("true")
            .endExec()
            .endReadinessProbe()
            .build();
    Container proxy = new ContainerBuilder(app()).withName("istio-proxy").build();
    PodSpec spec = new PodSpecBuilder().withContainers(exec, proxy).build();
    assertThat(ISTIO.apply(spec)).isEmpty();
    assertThat(spec.getContainers()).containsExactly(exec, proxy);
  }

  @Test
  void anUnknownNamedPortOrTheAgentsOwnPortIsRewrittenButNotHandedOver() {
    Container c =
        new ContainerBuilder()
            .withName("web")
            .withNewLivenessProbe()
            .withNewHttpGet()
            .withPort(new IntOrString("nope"))
            .endHttpGet()
            .endLivenessProbe()
            .withNewReadinessProbe()
            .withNewHttpGet()
            .withPort(new IntOrString(15020))
            .endHttpGet()
            .endReadinessProbe()
            .build();
    PodSpec spec = new PodSpecBuilder().withContainers(List.of(c)).build();
    assertThat(ISTIO.apply(spec)).isEmpty();
    assertThat(spec.getContainers().get(0).getLivenessProbe().getHttpGet().getPath())
        .isEqualTo("/app-health/web/livez");
  }
}
