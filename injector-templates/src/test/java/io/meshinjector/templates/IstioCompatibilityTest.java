package io.meshinjector.templates;

import static io.meshinjector.engine.decision.PathOption.CNI;
import static io.meshinjector.engine.decision.PathOption.INIT_NFT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.ProxyPlacement;
import io.meshinjector.engine.rules.AwaitFromPod;
import io.meshinjector.engine.rules.InjectGate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our Istio pods against istiod's own: the inputs and {@code .injected} goldens of istio/istio's
 * {@code pkg/kube/inject/testdata/inject} at tag 1.28.0 (the release the flavour pins), copied into
 * {@code istio/upstream/}. Each compared golden is rendered through our templates in the layout
 * istiod chose for it (native sidecar by default in 1.28; {@code -old-version}: regular container;
 * {@code .cni}: the CNI path) and compared whole. The differences that remain are applied by name
 * in {@link Differences}, each listed with its reason in docs/istio.md; any other difference fails.
 * Every upstream input is either compared or named in {@link #NOT_COMPARED} with the reason.
 */
class IstioCompatibilityTest {
  static final String DIR = "istio/upstream/";

  /** The istio/istio tag the goldens in {@link #DIR} were read at. */
  private static final String UPSTREAM_TAG = "1.28.0";

  /**
   * The flavour, with the image istiod's tests render (hub and tag are config, not a difference).
   */
  private static final String CONFIG =
      IstioCases.CONFIG + "proxy: {image: gcr.io/istio-testing/proxyv2, version: latest}\n";

  /** How istiod laid the pod out for a golden, as our decision's plan. */
  enum Layout {
    /**
     * istiod 1.28's default: native sidecar, istio-init, no hold (a native sidecar holds anyway).
     */
    NATIVE(new Plan(INIT_NFT, ProxyPlacement.NATIVE_SIDECAR, true, false, null)),
    /**
     * Native sidecars off ({@code -old-version}): a regular container, and no postStart since
     * holdApplicationUntilProxyStarts is off by default in istiod (a pod's own setting still wins).
     */
    CONTAINER(new Plan(INIT_NFT, ProxyPlacement.CONTAINER, false, false, null)),
    /** {@code components.cni.enabled}: istio-validation. */
    NATIVE_CNI(new Plan(CNI, ProxyPlacement.NATIVE_SIDECAR, true, false, null));

    final Plan plan;

    Layout(Plan plan) {
      this.plan = plan;
    }
  }

  /**
   * One golden compared: our config beside {@code mesh: istio} mirrors the flags istiod's test set.
   */
  record Compared(String input, String golden, Layout layout, String config) {
    @Override
    public String toString() {
      return golden;
    }
  }

  private static Compared c(String input, Layout layout) {
    return new Compared(input, input + ".injected", layout, "");
  }

  private static Compared c(String input, String golden, Layout layout, String config) {
    return new Compared(input, golden, layout, config);
  }

  static List<Compared> compared() {
    List<Compared> out = new ArrayList<>();
    for (String in :
        List.of(
            "hello.yaml",
            "auth.yaml",
            "auth.non-default-service-account.yaml",
            "cronjob.yaml",
            "daemonset.yaml",
            // in 1.28 the core dump is a mesh-wide setting: the input is hello's
            "enable-core-dump.yaml",
            "explicit-security-context.yaml",
            "frontend.yaml",
            "hello-image-pull-secret.yaml",
            "hello-mtls-not-ready.yaml",
            "hello-multi.yaml",
            "hello-namespace.yaml",
            "hello-probes.yaml",
            "hello-probes-proxyHoldApplication-ProxyConfig.yaml",
            "hello-probes-with-flag-set-in-annotation.yaml",
            "hello-probes-with-flag-unset-in-annotation.yaml",
            "hello-readiness.yaml",
            "https-probes.yaml",
            "job.yaml",
            "list.yaml",
            "list-frontend.yaml",
            "multi-container.yaml",
            "multi-init.yaml",
            "named_port.yaml",
            "native-sidecar.yaml",
            "one_container.yaml",
            "pod.yaml",
            "ready_live.yaml",
            "ready_only.yaml",
            "replicaset.yaml",
            "replicationcontroller.yaml",
            "resource_annotations.yaml",
            "startup_live.yaml",
            "startup_only.yaml",
            "startup_ready_live.yaml",
            "statefulset.yaml",
            "tcp-probes.yaml",
            "traffic-annotations.yaml",
            "traffic-annotations-wildcards.yaml",
            "truncate-canonical-name-pod.yaml",
            "two_container.yaml",
            "traffic-annotations-empty-includes.yaml",
            "prometheus-scrape.yaml",
            "prometheus-scrape2.yaml",
            "hello-probes-noProxyHoldApplication-ProxyConfig.yaml",
            "truncate-canonical-name-custom-controller-pod.yaml",
            // sidecar.istio.io/proxyImage: the image of istio-proxy and istio-init both
            "hello-proxy-override.yaml")) {
      out.add(c(in, Layout.NATIVE));
    }
    for (String w : List.of("hello", "cronjob", "daemonset", "job", "pod", "replicaset")) {
      out.add(c(w + ".yaml", w + "-old-version.yaml.injected", Layout.CONTAINER, ""));
    }
    out.add(c("statefulset.yaml", "statefulset-old-version.yaml.injected", Layout.CONTAINER, ""));
    out.add(
        c("native-sidecar.yaml", "native-sidecar-old-version.yaml.injected", Layout.CONTAINER, ""));
    // holdApplicationUntilProxyStarts set mesh-wide: a native sidecar holds the app anyway
    out.add(c("hello.yaml", "hello.proxyHoldsApplication.yaml.injected", Layout.NATIVE, ""));
    out.add(
        c(
            "hello-probes.yaml",
            "hello-probes.proxyHoldsApplication.yaml.injected",
            Layout.NATIVE,
            ""));
    out.add(
        c(
            "hello.yaml",
            "hello-always.yaml.injected",
            Layout.NATIVE,
            "templates: {values: {istio: {imagePullPolicy: Always}}}\n"));
    out.add(
        c(
            "hello.yaml",
            "hello-never.yaml.injected",
            Layout.NATIVE,
            "templates: {values: {istio: {imagePullPolicy: Never}}}\n"));
    out.add(
        c(
            "hello.yaml",
            "hello.yaml.proxyImageName.injected",
            Layout.NATIVE,
            "proxy: {image: gcr.io/istio-testing/proxyTest, version: latest}\n"));
    // istiod's meshConfig.defaultConfig is templates.values.istio.proxyConfig here
    out.add(
        c(
            "hello-tracing-disabled.yaml",
            "hello-tracing-disabled.yaml.injected",
            Layout.NATIVE,
            "templates: {values: {istio: {proxyConfig: {tracing: {}}}}}\n"));
    out.add(
        c(
            "format-duration.yaml",
            "format-duration.yaml.injected",
            Layout.NATIVE,
            "templates: {values: {istio: {proxyConfig: {drainDuration: 23s}}}}\n"));
    out.add(
        c(
            "hello.yaml",
            "hello.yaml.cni.injected",
            Layout.NATIVE_CNI,
            "templates: {values: {istio: {network: network1}}}\n"));
    return out;
  }

  /** The upstream inputs not compared, and why (docs/istio.md has the same list). */
  static final Map<String, String> NOT_COMPARED = new LinkedHashMap<>();

  static {
    String refused = "refused: ";
    String ownProxy =
        "skipped: the pod brings its own istio-proxy (istiod merges its template into it; here a"
            + " pod that has the proxy is left as it is)";
    NOT_COMPARED.put("user-volume.yaml", refused + "sidecar.istio.io/userVolume");
    // gateways are out of scope; their pods bring an istio-proxy container of their own
    String gateway =
        "skipped: a gateway (inject.istio.io/templates: gateway) with its own istio-proxy";
    NOT_COMPARED.put("gateway.yaml", gateway);
    NOT_COMPARED.put("gateway-spire.yaml", gateway);
    NOT_COMPARED.put("gateway-with-default-container.yaml", gateway);
    NOT_COMPARED.put("multiple-templates.yaml", ownProxy);
    NOT_COMPARED.put("grpc-agent.yaml", refused + "inject.istio.io/templates (proxyless gRPC)");
    NOT_COMPARED.put("grpc-simple.yaml", refused + "inject.istio.io/templates (proxyless gRPC)");
    NOT_COMPARED.put(
        "hello-probes-localhost.yaml",
        "istiod's meshConfig inboundTrafficPolicy LOCALHOST (mesh-wide), no pod input");
    NOT_COMPARED.put("custom-template.yaml", refused + "inject.istio.io/templates");
    NOT_COMPARED.put("sidecar-spire.yaml", refused + "inject.istio.io/templates (SPIRE)");
    NOT_COMPARED.put("proxy-override.yaml", ownProxy);
    NOT_COMPARED.put("proxy-override-args.yaml", ownProxy);
    NOT_COMPARED.put("proxy-override-runas.yaml", ownProxy);
    NOT_COMPARED.put("only-proxy-container.yaml", ownProxy);
    NOT_COMPARED.put(
        "hello-host-network.yaml", "skipped: hostNetwork pods are never injected, as in istiod");
    NOT_COMPARED.put(
        "hello-host-network-with-ns.yaml",
        "skipped: hostNetwork pods are never injected, as in istiod");
    NOT_COMPARED.put("hello-ignore.yaml", "skipped: sidecar.istio.io/inject: \"false\"");
    NOT_COMPARED.put(
        "hello-openshift.yaml", "OpenShift's own injection settings (istiod's platform switch)");
    NOT_COMPARED.put(
        "hello-openshift-custom-injection.yaml",
        "OpenShift's own injection settings (istiod's platform switch)");
    NOT_COMPARED.put(
        "hello-openshift-tproxy.yaml", refused + "sidecar.istio.io/interceptionMode: TPROXY");
    NOT_COMPARED.put(
        "hello-existing-cncf-networks.yaml", "Multus (values.cni.provider=multus) is out of scope");
    NOT_COMPARED.put(
        "hello-existing-cncf-networks-json.yaml",
        "Multus (values.cni.provider=multus) is out of scope");
    NOT_COMPARED.put(
        "kubevirtInterfaces.yaml", "traffic.sidecar.istio.io/kubevirtInterfaces is not honoured");
    NOT_COMPARED.put(
        "kubevirtInterfaces_list.yaml",
        "traffic.sidecar.istio.io/kubevirtInterfaces is not honoured");
    NOT_COMPARED.put(
        "reroute-virtual-interfaces.yaml", "istio.io/reroute-virtual-interfaces is not honoured");
    NOT_COMPARED.put(
        "reroute-virtual-interfaces_list.yaml",
        "istio.io/reroute-virtual-interfaces is not honoured");
    NOT_COMPARED.put(
        "status_annotations.yaml",
        "status.sidecar.istio.io/port and readiness.status.sidecar.istio.io/* are not honoured");
    NOT_COMPARED.put(
        "status_annotations_zeroport.yaml",
        "status.sidecar.istio.io/port and readiness.status.sidecar.istio.io/* are not honoured");
    NOT_COMPARED.put(
        "status_params.yaml", "istiod's statusPort and readiness values (no config key here)");
    NOT_COMPARED.put(
        "traffic-params.yaml",
        "istiod's global includeIPRanges/excludeIPRanges/statusPort values (no config key here)");
    NOT_COMPARED.put(
        "traffic-params-empty-includes.yaml",
        "istiod's global includeIPRanges/excludeIPRanges/statusPort values (no config key here)");
    NOT_COMPARED.put(
        "merge-probers.yaml",
        "skipped: an istiod-injected pod re-injected; a pod that carries istio-proxy is left alone");
    NOT_COMPARED.put("hello-service.yaml", "a Service beside the Deployment: kube-inject only");
    NOT_COMPARED.put(
        "deploymentconfig.yaml", "OpenShift DeploymentConfig is not a workload kind here");
    NOT_COMPARED.put(
        "deploymentconfig-multi.yaml", "OpenShift DeploymentConfig is not a workload kind here");
    NOT_COMPARED.put(
        "deploymentconfig-with-canonical-service-label.yaml",
        "OpenShift DeploymentConfig is not a workload kind here");
    NOT_COMPARED.put(
        "init-no-intercept-no-native-sidecar.yaml",
        "interceptionMode NONE: a pod opts out instead");
    NOT_COMPARED.put(
        "native-sidecar-opt-in.yaml", "sidecar.istio.io/nativeSidecar: the decision is per node");
    NOT_COMPARED.put(
        "native-sidecar-opt-out.yaml", "sidecar.istio.io/nativeSidecar: the decision is per node");
    for (String bad :
        List.of(
            "excludeinboundports",
            "excludeipranges",
            "excludeoutboundports",
            "includeinboundports",
            "includeipranges")) {
      NOT_COMPARED.put(
          "traffic-annotations-bad-" + bad + ".yaml",
          "no golden: istiod refuses it, and so do we (" + refused + "the annotation's pattern)");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("compared")
  void matchesIstiodsGoldenApartFromTheNamedDifferences(Compared c) {
    assertMatchesIstiod(
        c.input(), Fixtures.loadTrees(DIR + c.golden()), c.layout().plan, c.config(), c.golden());
  }

  /**
   * The upstream input injected with {@code plan} (the pod's own hold setting applied) and {@code
   * config} beside the flavour's, against {@code goldens}: istiod's, or istiod's as its template
   * renders them with a value its goldens do not set; whole, apart from the named differences.
   */
  static void assertMatchesIstiod(
      String input, List<JsonNode> goldens, Plan plan, String config, String label) {
    assertMatchesIstiod(input, goldens, plan, config, label, d -> d);
  }

  /**
   * As above, with {@code difference} applied to both sides after the named differences: one more
   * of docs/istio.md's differences that only the caller's case exercises.
   */
  static void assertMatchesIstiod(
      String input,
      List<JsonNode> goldens,
      Plan plan,
      String config,
      String label,
      java.util.function.UnaryOperator<JsonNode> difference) {
    // a case's own proxy map replaces the base one whole (one YAML document, one key)
    MeshConfig mesh =
        ConfigLoader.fromYaml(
            config.startsWith("proxy:") ? IstioCases.CONFIG + config : CONFIG + config);
    PodInjector injector = new PodInjector(TemplateConfig.from(mesh));
    List<JsonNode> inputs = Fixtures.loadTrees(DIR + input);
    assertThat(goldens).as("documents").hasSameSizeAs(inputs);
    for (int i = 0; i < inputs.size(); i++) {
      JsonNode ours =
          Injected.document(
              inputs.get(i), IstioCases.NAMESPACE, injector, (w, p) -> decide(mesh, plan, w, p));
      JsonNode o = difference.apply(Differences.ours(ours));
      JsonNode e = difference.apply(Differences.istiod(goldens.get(i)));
      String actual = Fixtures.yaml(o);
      String expected = Fixtures.yaml(e);
      if (!actual.equals(expected)) {
        // left to read beside each other, as Linkerd's tests leave a rejected golden
        writeRejected(label + "." + i, actual, expected);
      }
      assertThat(actual).as(label + " document " + i).isEqualTo(expected);
    }
  }

  private static void writeRejected(String name, String ours, String istiod) {
    try {
      Path dir = Files.createDirectories(Path.of("target/istio-compatibility"));
      Files.writeString(dir.resolve(name + ".ours.yaml"), ours);
      Files.writeString(dir.resolve(name + ".istiod.yaml"), istiod);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The gate (and the pod's own hold setting) as the engine applies them, else the layout. */
  private static Decision decide(MeshConfig mesh, Plan plan, String workload, Pod pod) {
    Optional<Outcome> gated =
        new InjectGate(mesh.engine().injection())
            .check(pod, IstioCases.namespace(), t -> {}, w -> {});
    if (gated.isPresent()) {
      return Fixtures.decision(workload, gated.get());
    }
    boolean await =
        AwaitFromPod.read(
                pod.getMetadata().getAnnotations(), mesh.engine().injection().proxyAwaitFrom())
            .orElse(plan.proxyAwait());
    return Fixtures.inject(
        workload, new Plan(plan.path(), plan.proxy(), await, plan.ipv6(), plan.nodeConstraint()));
  }

  /** Bumping the flavour's Istio version means reading that release's goldens too. */
  @Test
  void theGoldensAreThoseOfTheReleaseTheFlavourPins() {
    assertThat(ConfigLoader.fromYaml(IstioCases.CONFIG).tree().at("/proxy/version").asText())
        .isEqualTo(UPSTREAM_TAG);
  }

  @Test
  void everyUpstreamInputIsComparedOrHasItsReason() throws Exception {
    List<String> inputs = new ArrayList<>();
    try (Stream<Path> files =
        Files.list(Path.of(IstioCompatibilityTest.class.getResource("/" + DIR).toURI()))) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .sorted()
          .forEach(inputs::add);
    }
    TreeSet<String> compared = new TreeSet<>();
    compared().forEach(c -> compared.add(c.input()));
    for (String in : inputs) {
      assertThat(compared.contains(in) != NOT_COMPARED.containsKey(in))
          .as(in + ": compared, or not compared with a reason (exactly one)")
          .isTrue();
    }
    assertThat(inputs).containsAll(NOT_COMPARED.keySet()).containsAll(compared);
  }

  /** What NOT_COMPARED says is refused or skipped is what the gate does. */
  @Test
  void theInputsSaidToBeRefusedOrSkippedAre() {
    MeshConfig mesh = ConfigLoader.fromYaml(IstioCases.CONFIG);
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, String> e : NOT_COMPARED.entrySet()) {
      boolean refused = e.getValue().contains("refused");
      boolean skipped = e.getValue().startsWith("skipped");
      if (!refused && !skipped) {
        continue;
      }
      for (JsonNode in : Fixtures.loadTrees(DIR + e.getKey())) {
        for (WorkloadTemplates.PodTemplateRef ref :
            WorkloadTemplates.podTemplates(in, IstioCases.NAMESPACE)) {
          Optional<Outcome> gated =
              new InjectGate(mesh.engine().injection())
                  .check(Injected.bind(ref), IstioCases.namespace(), t -> {}, w -> {});
          String got = gated.map(o -> o.getClass().getSimpleName()).orElse("Inject");
          if (!got.equals(refused ? "Refuse" : "Skip")) {
            wrong.add(e.getKey() + " (" + e.getValue() + "): " + gated.orElse(null));
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  /**
   * The differences that remain between istiod's goldens and our output, each named and numbered as
   * in docs/istio.md ("Differences from istiod's output"). Applied to both sides, so that what is
   * left must be equal.
   */
  static final class Differences {
    private Differences() {}

    static JsonNode ours(JsonNode doc) {
      ObjectNode d = doc.deepCopy();
      forEachPodTemplate(
          d,
          t -> {
            // 1. our own annotations: the decision summary, the injector's version, the
            // containers it laid out, the proxy version and the config digest check reads
            ObjectNode a = (ObjectNode) t.path("metadata").path("annotations");
            if (!a.isMissingNode()) {
              a.remove("mesh-injector.io/decision");
              a.remove("mesh-injector.io/injector-version");
              a.remove("mesh-injector.io/proxy-version");
              a.remove("mesh-injector.io/config-digest");
              a.remove("mesh-injector.io/revision");
              a.remove(PodInjector.INJECTED_CONTAINERS);
            }
            // 2. seccompProfile RuntimeDefault on istio-proxy and istio-validation
            for (JsonNode ct : containers(t)) {
              String name = ct.path("name").asText();
              if ((name.equals("istio-proxy") || name.equals("istio-validation"))
                  && ct.path("securityContext").isObject()) {
                JsonNode seccomp =
                    ((ObjectNode) ct.get("securityContext")).remove("seccompProfile");
                assertThat(seccomp.path("type").asText()).isEqualTo("RuntimeDefault");
              }
            }
          });
      return serialisation(d);
    }

    static JsonNode istiod(JsonNode doc) {
      ObjectNode d = doc.deepCopy();
      // 3. (serialisation) a CronJob's pod metadata lands on jobTemplate.metadata in istioctl's
      //    output; the webhook, and we, write it on the pod template
      if (d.path("kind").asText().equals("CronJob")
          && d.path("spec").path("jobTemplate").path("metadata").isObject()) {
        ObjectNode job = (ObjectNode) d.get("spec").get("jobTemplate");
        ObjectNode template = (ObjectNode) job.get("spec").get("template");
        template.set("metadata", job.remove("metadata"));
      }
      forEachPodTemplate(
          d,
          t -> {
            // 4. a regular proxy container goes first here (it holds the app back when
            //    proxy-await is on); istiod puts it last unless holdApplicationUntilProxyStarts
            ArrayNode cs = (ArrayNode) t.path("spec").path("containers");
            for (int i = 1; i < cs.size(); i++) {
              if (cs.get(i).path("name").asText().equals("istio-proxy")) {
                cs.insert(0, cs.remove(i));
              }
            }
            // 5. the pod's own volumes stay first and ours follow; istiod puts its own first
            JsonNode status = t.path("metadata").path("annotations").get("sidecar.istio.io/status");
            if (status != null && t.path("spec").path("volumes").isArray()) {
              List<String> injected = new ArrayList<>();
              try {
                Fixtures.JSON
                    .readTree(status.asText())
                    .path("volumes")
                    .forEach(v -> injected.add(v.asText()));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              ArrayNode vs = (ArrayNode) t.get("spec").get("volumes");
              List<JsonNode> own = new ArrayList<>();
              List<JsonNode> ours = new ArrayList<>();
              vs.forEach(v -> (injected.contains(v.path("name").asText()) ? ours : own).add(v));
              vs.removeAll();
              own.forEach(vs::add);
              ours.forEach(vs::add);
            }
          });
      return serialisation(d);
    }

    /**
     * 3. Serialisation: istioctl kube-inject writes the whole object back ({@code
     * creationTimestamp: null}, {@code status: {}}, {@code resources: {}}, an emptyDir as {@code
     * {}} or left out); here the app's parts stay as written. Nulls and empty maps go on both
     * sides, and the status annotation's JSON is compared as JSON.
     */
    private static JsonNode serialisation(ObjectNode d) {
      if (d.isEmpty()) {
        return d;
      }
      // quantities as the API server stores them: istioctl writes "1" for a pod's "1000m"
      forEachPodTemplate(
          d,
          t -> {
            for (JsonNode ct : containers(t)) {
              for (String kind : List.of("requests", "limits")) {
                JsonNode r = ct.path("resources").path(kind);
                if (r.isObject()) {
                  r.fieldNames()
                      .forEachRemaining(
                          k -> ((ObjectNode) r).put(k, canonicalQuantity(r.get(k).asText())));
                }
              }
            }
          });
      d.remove("status");
      forEachPodTemplate(
          d,
          t -> {
            JsonNode status = t.path("metadata").path("annotations").get("sidecar.istio.io/status");
            if (status != null) {
              try {
                ((ObjectNode) t.get("metadata").get("annotations"))
                    .put(
                        "sidecar.istio.io/status",
                        Fixtures.JSON.readTree(status.asText()).toString());
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
          });
      prune(d);
      return sorted(d);
    }

    /** Map keys in order, so that the YAML of two equal trees is the same text. */
    private static JsonNode sorted(JsonNode n) {
      if (n.isObject()) {
        ObjectNode out = Fixtures.JSON.createObjectNode();
        new TreeSet<>(iterate(n.fieldNames())).forEach(k -> out.set(k, sorted(n.get(k))));
        return out;
      }
      if (n.isArray()) {
        ArrayNode out = Fixtures.JSON.createArrayNode();
        n.forEach(i -> out.add(sorted(i)));
        return out;
      }
      return n;
    }

    private static List<String> iterate(Iterator<String> it) {
      List<String> out = new ArrayList<>();
      it.forEachRemaining(out::add);
      return out;
    }

    /** Whole cores written in millicores ("4000m") as cores ("4"); other quantities as they are. */
    static String canonicalQuantity(String q) {
      if (q.matches("[0-9]+000m")) {
        return q.substring(0, q.length() - 4);
      }
      return q;
    }

    private static boolean prune(JsonNode n) {
      if (n.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          if (e.getValue().isNull() || prune(e.getValue())) {
            it.remove();
          }
        }
        return n.isEmpty();
      }
      if (n.isArray()) {
        n.forEach(Differences::prune);
      }
      return false;
    }

    static List<JsonNode> containers(JsonNode t) {
      List<JsonNode> out = new ArrayList<>();
      t.path("spec").path("initContainers").forEach(out::add);
      t.path("spec").path("containers").forEach(out::add);
      return out;
    }

    /** The pod, or the pod templates of a workload or a List. */
    static void forEachPodTemplate(JsonNode doc, java.util.function.Consumer<JsonNode> f) {
      String kind = doc.path("kind").asText();
      if (kind.endsWith("List")) {
        doc.path("items").forEach(i -> forEachPodTemplate(i, f));
      } else if (kind.equals("Pod")) {
        f.accept(doc);
      } else if (kind.equals("CronJob")) {
        f.accept(doc.path("spec").path("jobTemplate").path("spec").path("template"));
      } else if (doc.path("spec").path("template").isObject()) {
        f.accept(doc.path("spec").path("template"));
      }
    }
  }
}
