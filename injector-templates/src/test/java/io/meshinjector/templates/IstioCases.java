package io.meshinjector.templates;

import static io.meshinjector.engine.decision.PathOption.CNI;
import static io.meshinjector.engine.decision.PathOption.INIT_LEGACY;
import static io.meshinjector.engine.decision.PathOption.INIT_NFT;
import static io.meshinjector.engine.decision.PathOption.INIT_NFTABLES;
import static io.meshinjector.engine.decision.ProxyPlacement.CONTAINER;
import static io.meshinjector.engine.decision.ProxyPlacement.NATIVE_SIDECAR;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.Redirect;
import io.meshinjector.engine.rules.InjectGate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The Istio flavour's cases: Istio's own injection inputs (copied from its repository's {@code
 * pkg/kube/inject/testdata/inject}) in the init, CNI and native-sidecar layouts, each pod first
 * through the engine's gate with the flavour's config, as the webhook would.
 */
final class IstioCases {
  private IstioCases() {}

  static final String NAMESPACE = "default";

  static final String CONFIG = "mesh: istio\n";

  /** The proxy container of the Istio templates (istio/proxy.yaml). */
  static final String PROXY = "istio-proxy";

  static MeshConfig meshConfig() {
    return ConfigLoader.fromYaml(CONFIG);
  }

  static PodInjector injector() {
    return new PodInjector(TemplateConfig.from(meshConfig()));
  }

  /** The layouts the goldens cover, by name. */
  enum Layout {
    INIT("init", new Plan(INIT_NFT, CONTAINER, true, false, null)),
    CNI_PATH("cni", new Plan(CNI, CONTAINER, true, false, null)),
    NATIVE("native", new Plan(INIT_NFT, NATIVE_SIDECAR, true, false, null)),
    NATIVE_CNI("native-cni", new Plan(CNI, NATIVE_SIDECAR, true, false, null)),
    LEGACY_NO_AWAIT("legacy-no-await", new Plan(INIT_LEGACY, CONTAINER, false, false, null)),
    /** Dual-stack: ISTIO_DUAL_STACK in the ProxyConfig, on istio-init and istio-proxy. */
    NATIVE_IPV6("native-ipv6", new Plan(INIT_NFT, NATIVE_SIDECAR, true, true, null)),
    NATIVE_CNI_IPV6("native-cni-ipv6", new Plan(CNI, NATIVE_SIDECAR, true, true, null)),
    /** Native nftables: istio-init with --native-nftables. */
    NFTABLES("nftables", new Plan(INIT_NFTABLES, NATIVE_SIDECAR, true, false, null)),
    NFTABLES_CONTAINER_IPV6(
        "nftables-container-ipv6", new Plan(INIT_NFTABLES, CONTAINER, true, true, null));

    final String id;
    final Plan plan;

    Layout(String id, Plan plan) {
      this.id = id;
      this.plan = plan;
    }
  }

  record Case(String fixture, Layout layout) {
    String name() {
      return fixture + "-" + layout.id;
    }

    boolean cni() {
      return layout.plan.path().redirect() == Redirect.CNI;
    }

    List<JsonNode> inputs() {
      return Fixtures.loadTrees("istio/fixtures/" + fixture + ".yaml");
    }

    /** The gate's outcome when it ends the decision, else the layout's plan. */
    Decision decide(String workload, Pod pod) {
      Optional<Outcome> gated =
          new InjectGate(meshConfig().engine().injection())
              .check(pod, namespace(), t -> {}, w -> {});
      return gated
          .map(o -> Fixtures.decision(workload, o))
          .orElseGet(() -> Fixtures.inject(workload, layout.plan));
    }

    List<Pod> pods() {
      List<Pod> out = new ArrayList<>();
      for (JsonNode in : inputs()) {
        for (WorkloadTemplates.PodTemplateRef ref : WorkloadTemplates.podTemplates(in, NAMESPACE)) {
          out.add(Injected.bind(ref));
        }
      }
      return out;
    }

    List<String> workloads() {
      List<String> out = new ArrayList<>();
      for (JsonNode in : inputs()) {
        WorkloadTemplates.podTemplates(in, NAMESPACE).forEach(r -> out.add(r.workload()));
      }
      return out;
    }

    @Override
    public String toString() {
      return name();
    }
  }

  static Namespace namespace() {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(NAMESPACE)
        .addToAnnotations(Annotations.INJECT, "enabled")
        .endMetadata()
        .build();
  }

  static List<String> fixtures() {
    try (Stream<Path> files =
        Files.list(Path.of(IstioCases.class.getResource("/istio/fixtures").toURI()))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .map(n -> n.substring(0, n.length() - ".yaml".length()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every corpus input in the init, CNI and native layouts; the rest on a few inputs. */
  static Stream<Case> all() {
    List<Case> out = new ArrayList<>();
    for (String f : fixtures()) {
      for (Layout l : List.of(Layout.INIT, Layout.CNI_PATH, Layout.NATIVE)) {
        out.add(new Case(f, l));
      }
    }
    for (String f : List.of("hello", "annotations")) {
      for (Layout l :
          List.of(
              Layout.NATIVE_CNI,
              Layout.LEGACY_NO_AWAIT,
              Layout.NATIVE_IPV6,
              Layout.NATIVE_CNI_IPV6,
              Layout.NFTABLES,
              Layout.NFTABLES_CONTAINER_IPV6)) {
        out.add(new Case(f, l));
      }
    }
    return out.stream();
  }
}
