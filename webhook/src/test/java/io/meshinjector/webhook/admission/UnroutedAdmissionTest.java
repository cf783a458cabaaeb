package io.meshinjector.webhook.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.cluster.NodeIndex;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.rfc6902.Parsson;
import io.meshinjector.webhook.cluster.ClusterFiles;
import io.meshinjector.webhook.server.AdmissionEndpoint;
import io.meshinjector.webhook.server.RequestBody;
import io.meshinjector.webhook.support.InProcessEndpoint;
import io.meshinjector.webhook.support.Reviews;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The catch-all path, {@code /mutate/unrouted}, of revision {@code stable} in a cluster with
 * revisions stable and canary, tag default pointing at stable and tag prod at canary: it injects
 * only what routes to stable and no route's own entry takes, refuses a name no release serves, and
 * answers everything else without a patch. The same request on {@code /mutate} is injected as
 * before: the API server routed it there.
 */
class UnroutedAdmissionTest {
  private static final Revisions CLUSTER =
      new Revisions(
          true,
          Map.of(
              "stable", new Revisions.Release("mi-stable", "stable", "stable-mesh-injector"),
              "canary", new Revisions.Release("mi-canary", "canary", "canary-mesh-injector")),
          Map.of("default", "stable", "prod", "canary"));

  private static final MeshConfig STABLE = ConfigLoader.fromYaml("revisions: {name: stable}\n");

  /** The example cluster, its namespace shop as given, and the revisions above. */
  private static ClusterView view(Map<String, String> labels, Map<String, String> annotations) {
    ClusterView example =
        ClusterFiles.load(STABLE.engine().capabilities(), List.of(Reviews.example("cluster.yaml")));
    Namespace shop =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName("shop")
            .withLabels(labels)
            .withAnnotations(annotations)
            .endMetadata()
            .build();
    return new ClusterView() {
      @Override
      public Optional<Namespace> namespace(String name) {
        return "shop".equals(name) ? Optional.of(shop) : example.namespace(name);
      }

      @Override
      public NodeIndex nodes(Instant now) {
        return example.nodes(now);
      }

      @Override
      public Revisions revisions() {
        return CLUSTER;
      }
    };
  }

  private static AdmissionReply answer(
      ClusterView view, Map<String, String> podAnnotations, Entry entry) throws Exception {
    return answer(STABLE, view, podAnnotations, entry);
  }

  private static AdmissionReply answer(
      MeshConfig config, ClusterView view, Map<String, String> podAnnotations, Entry entry)
      throws Exception {
    return answer(config, view, podAnnotations, entry, new SimpleMeterRegistry());
  }

  private static AdmissionReply answer(
      MeshConfig config,
      ClusterView view,
      Map<String, String> podAnnotations,
      Entry entry,
      SimpleMeterRegistry registry)
      throws Exception {
    AdmissionEndpoint endpoint = InProcessEndpoint.of(config, () -> view, registry);
    ObjectNode pod = pod(podAnnotations);
    byte[] body =
        Reviews.JSON.writeValueAsBytes(Reviews.podCreate("admission.k8s.io/v1", "shop", pod));
    return endpoint.answer("application/json", RequestBody.of(body), entry);
  }

  private static ObjectNode pod(Map<String, String> podAnnotations) {
    ObjectNode pod = Reviews.examplePod();
    ObjectNode annotations = ((ObjectNode) pod.path("metadata")).putObject("annotations");
    podAnnotations.forEach(annotations::put);
    return pod;
  }

  private static Map<String, String> optedIn(String rev) {
    Map<String, String> a = new HashMap<>(Map.of("inject", "enabled"));
    if (rev != null) {
      a.put("mesh-injector.io/rev", rev);
    }
    return a;
  }

  @Test
  void anUnlabelledNamespaceThatRoutesHereIsInjectedWithThisRevisionRecorded() throws Exception {
    AdmissionReply reply = answer(view(Map.of(), optedIn(null)), Map.of(), Entry.UNROUTED);
    assertThat(reply).isInstanceOf(AdmissionReply.Patched.class);
    JsonNode patched = Parsson.apply(((AdmissionReply.Patched) reply).patch(), pod(Map.of()));
    assertThat(
            patched.path("metadata").path("annotations").path("mesh-injector.io/revision").asText())
        .isEqualTo("stable");
  }

  @Test
  void anUnlabelledNamespaceThatRoutesElsewhereGetsNoPatch() throws Exception {
    assertThat(answer(view(Map.of(), optedIn("prod")), Map.of(), Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Allowed.class);
    // the pod's own rev wins over its namespace's
    assertThat(
            answer(
                view(Map.of(), optedIn("stable")),
                Map.of("mesh-injector.io/rev", "canary"),
                Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Allowed.class);
  }

  /**
   * The API server chose the catch-all from its cache of namespaces, which may not hold the label
   * this view already has (a namespace applied with its Deployment): the pod is injected, since no
   * route's entry will be called for it.
   */
  @Test
  void aLabelledNamespaceIsInjectedOnTheCatchAllTooWhenItRoutesHere() throws Exception {
    assertThat(
            answer(
                view(Map.of("mesh-injector.io/injection", "enabled"), optedIn(null)),
                Map.of(),
                Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Patched.class);
    // the same pod through the route's own entry: the API server chose this revision
    assertThat(
            answer(
                view(Map.of("mesh-injector.io/injection", "enabled"), optedIn(null)),
                Map.of(),
                Entry.ROUTED))
        .isInstanceOf(AdmissionReply.Patched.class);
  }

  @Test
  void aNameNoReleaseServesIsRefusedNamingIt() throws Exception {
    AdmissionReply reply =
        answer(
            view(Map.of("mesh-injector.io/injection", "enabled"), optedIn(null)),
            Map.of("mesh-injector.io/rev", "canry"),
            Entry.UNROUTED);
    assertThat(reply).isInstanceOf(AdmissionReply.Refused.class);
    assertThat(((AdmissionReply.Refused) reply).message())
        .contains("names revision canry, which no release serves")
        .contains("canary, stable");
    // a namespace labelled for such a name
    assertThat(
            answer(
                view(Map.of("mesh-injector.io/injection", "retired"), optedIn("retired")),
                Map.of(),
                Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Refused.class);
  }

  /**
   * The Istio flavour: the namespace's istio.io/rev opts it in and routes it, and istio-injection:
   * enabled beside it wins (the tag default), as with istiod; the Linkerd flavour reads neither.
   */
  @Test
  void inTheIstioFlavourTheNamespacesIstioLabelsOptInAndRoute() throws Exception {
    MeshConfig istio = ConfigLoader.fromYaml("mesh: istio\nrevisions: {name: stable}\n");
    AdmissionReply mine =
        answer(istio, view(Map.of("istio.io/rev", "stable"), Map.of()), Map.of(), Entry.UNROUTED);
    assertThat(mine).isInstanceOf(AdmissionReply.Patched.class);
    JsonNode patched = Parsson.apply(((AdmissionReply.Patched) mine).patch(), pod(Map.of()));
    assertThat(patched.at("/metadata/annotations/mesh-injector.io~1revision").asText())
        .isEqualTo("stable");
    assertThat(
            answer(istio, view(Map.of("istio.io/rev", "prod"), Map.of()), Map.of(), Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Allowed.class);
    assertThat(
            answer(
                istio,
                view(Map.of("istio-injection", "enabled", "istio.io/rev", "prod"), Map.of()),
                Map.of(),
                Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Patched.class);
    assertThat(
            answer(
                istio, view(Map.of("istio.io/rev", "retired"), Map.of()), Map.of(), Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Refused.class);
    assertThat(answer(view(Map.of("istio.io/rev", "stable"), Map.of()), Map.of(), Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Allowed.class);
  }

  @Test
  void aRefusalForAnUnknownNameIsCountedByItsReason() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    answer(STABLE, view(Map.of(), optedIn("retired")), Map.of(), Entry.UNROUTED, registry);
    assertThat(
            registry
                .get("mesh_injector_refusals")
                .tag("reason", "unknown-revision")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  /**
   * A pod that carries a revision's record but no proxy (its annotations copied from an injected
   * pod, or the proxy taken out) is injected again, and the record names the revision that injected
   * it this time.
   */
  @Test
  void aPodCarryingAnotherRevisionsRecordButNoProxyIsInjectedAndRecordedAgain() throws Exception {
    Map<String, String> copied = Map.of("mesh-injector.io/revision", "canary");
    AdmissionReply reply = answer(view(Map.of(), optedIn(null)), copied, Entry.UNROUTED);
    assertThat(reply).isInstanceOf(AdmissionReply.Patched.class);
    JsonNode patched = Parsson.apply(((AdmissionReply.Patched) reply).patch(), pod(copied));
    assertThat(patched.at("/metadata/annotations/mesh-injector.io~1revision").asText())
        .isEqualTo("stable");
    assertThat(patched.path("spec").toString()).contains("\"name\":\"linkerd-proxy\"");
  }

  @Test
  void aPodThatDidNotOptInIsNeverRefusedForItsRev() throws Exception {
    assertThat(
            answer(
                view(Map.of(), Map.of()), Map.of("mesh-injector.io/rev", "nope"), Entry.UNROUTED))
        .isInstanceOf(AdmissionReply.Allowed.class);
  }
}
