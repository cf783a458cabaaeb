package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.InjectionConfig;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.engine.revisions.Route;
import io.meshinjector.engine.revisions.RouteResolver;
import io.meshinjector.webhook.controllers.InjectionLabels;
import io.meshinjector.webhook.revisions.RouteEntries;
import io.meshinjector.webhook.revisions.TagWebhooks;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Several releases side by side (revisions) and the tags pointing at them, evaluated as the API
 * server evaluates their webhook configurations for a pod's CREATE: each release's configuration as
 * the chart renders it, each tag's as the webhook writes it (TagWebhooks), each namespace's routing
 * label as the label writer writes it (InjectionLabels). The rule, for every combination of the
 * namespace's opt-in and mesh-injector.io/rev and the pod's, and in the Istio flavour the
 * namespace's istio-injection and istio.io/rev labels:
 *
 * <ul>
 *   <li>a namespace that opted in (the label writer labelled it) and a pod whose name (its own rev,
 *       else its namespace's, else the tag default) is served: exactly one entry with failurePolicy
 *       Fail is called, in the configuration that serves that name (the tag's for a tag, the
 *       revision's own for a revision), and its client reaches the release serving it;
 *   <li>a name no release serves: no Fail entry, and an Ignore entry to the unrouted path, where
 *       the webhook refuses the pod;
 *   <li>a namespace that did not opt in: no Fail entry;
 *   <li>every other entry called is Ignore, to the unrouted path; no two configurations are Fail
 *       for one pod.
 * </ul>
 */
class RevisionRoutingTest {
  /** A release: its Helm name and namespace, and its value {@code revision}. */
  record Release(String name, String namespace, String revision) {
    String fullname() {
      return name + "-mesh-injector";
    }

    String revisionName() {
      return revision.isEmpty() ? RevisionNames.DEFAULT : revision;
    }
  }

  static final Release DEFAULT = new Release("mi", "mesh-system", "");
  static final Release CANARY = new Release("canary", "mesh-canary", "canary");
  static final Release STABLE = new Release("stable", "mesh-stable", "stable");

  /** A cluster: its releases (the first runs the probe) and its tags, by name, to revisions. */
  record Cluster(String description, List<Release> releases, Map<String, String> tags) {
    @Override
    public String toString() {
      return description;
    }

    /** Every name a namespace or pod may give: served revisions, tags, and one nobody serves. */
    List<String> names() {
      List<String> names = new ArrayList<>();
      for (Release r : releases) {
        if (!tags.containsKey(r.revisionName())) {
          names.add(r.revisionName());
        }
      }
      names.addAll(tags.keySet());
      names.add("nosuch");
      return names;
    }

    Revisions revisions() {
      Map<String, Revisions.Release> served = new LinkedHashMap<>();
      for (Release r : releases) {
        served.put(r.revisionName(), new Revisions.Release(r.namespace(), r.name(), r.fullname()));
      }
      return new Revisions(true, served, tags);
    }

    Release serving(String revision) {
      return releases.stream()
          .filter(r -> r.revisionName().equals(revision))
          .findFirst()
          .orElseThrow();
    }
  }

  static final List<Cluster> CLUSTERS =
      List.of(
          new Cluster(
              "default+canary, tag default->default, prod->canary",
              List.of(DEFAULT, CANARY),
              tags("default", "default", "prod", "canary")),
          new Cluster(
              "default+canary, no tag default (the revision default serves it), prod->canary",
              List.of(DEFAULT, CANARY),
              tags("prod", "canary")),
          new Cluster(
              "canary+stable, tag default->stable, prod->canary",
              List.of(STABLE, CANARY),
              tags("default", "stable", "prod", "canary")),
          new Cluster(
              "default+canary+stable, tag default->stable, prod->canary",
              List.of(DEFAULT, CANARY, STABLE),
              tags("default", "stable", "prod", "canary")));

  private static Map<String, String> tags(String... pairs) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put(pairs[i], pairs[i + 1]);
    }
    return out;
  }

  /** One webhook configuration of a cluster and the release its clients must reach. */
  record Configuration(String name, JsonNode mwc, Release reaches) {}

  private static final Map<List<Object>, JsonNode> RENDERED = new ConcurrentHashMap<>();

  /**
   * A release's configuration as the chart renders it in the Linkerd flavour, or with {@code
   * config.mesh: istio} (whose excluded namespaces differ), once per release and flavour.
   */
  static JsonNode rendered(Release r, boolean istio) {
    return RENDERED.computeIfAbsent(
        List.of(r, istio),
        k -> {
          UnaryOperator<com.marcnuri.helm.TemplateCommand> values =
              t ->
                  t.withName(r.name())
                      .withNamespace(r.namespace())
                      .set("revision", r.revision())
                      .set("probe.enabled", r != DEFAULT);
          try {
            return find(
                istio
                    ? Charts.parse(
                        Charts.renderWithoutTrustAnchors(
                            Charts.CHART, t -> values.apply(t).set("config.mesh", "istio")))
                    : render(values),
                "MutatingWebhookConfiguration",
                r.fullname());
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  static JsonNode rendered(Release r) {
    return rendered(r, false);
  }

  static List<Configuration> configurations(Cluster cluster) {
    return configurations(cluster, false);
  }

  /** Every webhook configuration of the cluster: the releases' and the tags'. */
  static List<Configuration> configurations(Cluster cluster, boolean istio) {
    List<Configuration> out = new ArrayList<>();
    for (Release r : cluster.releases()) {
      JsonNode mwc = rendered(r, istio);
      if (r.revisionName().equals(RevisionNames.DEFAULT)
          && cluster.tags().containsKey(RevisionNames.DEFAULT)) {
        // as `tag set default` leaves it: the tag object serves the tag default now
        mwc = withoutRoutes(mwc);
      }
      out.add(new Configuration(r.fullname(), mwc, r));
    }
    cluster
        .tags()
        .forEach(
            (tag, revision) -> {
              Release target = cluster.serving(revision);
              out.add(
                  new Configuration(
                      RevisionNames.tagObjectName(tag),
                      WebhookRoutes.tag(tag, rendered(target, istio)),
                      target));
            });
    return out;
  }

  /**
   * The configuration without its route entries, the catch-all alone ({@link
   * RouteEntries#isRoute}).
   */
  static JsonNode withoutRoutes(JsonNode mwc) {
    ObjectNode copy = (ObjectNode) mwc.deepCopy();
    ArrayNode kept = copy.putArray("webhooks");
    for (JsonNode w : mwc.path("webhooks")) {
      if (!RouteEntries.isRoute(
          new MutatingWebhook() {
            {
              setName(w.path("name").asText());
            }
          })) {
        kept.add(w);
      }
    }
    return copy;
  }

  static final InjectionConfig LINKERD = ConfigLoader.defaults().engine().injection();
  static final InjectionConfig ISTIO = ConfigLoader.fromYaml("mesh: istio\n").engine().injection();

  /**
   * One case: the namespace's {@code inject} (enabled, disabled, or null: none) and rev, in the
   * Istio flavour its Istio labels ({@code istioLabels}, empty in the Linkerd flavour), the pod's
   * inject and rev (null: none).
   */
  record Case(
      Cluster cluster,
      InjectionConfig flavour,
      Map<String, String> istioLabels,
      String nsInject,
      String nsRev,
      String podInject,
      String podRev) {
    Case(Cluster cluster, String nsInject, String nsRev, String podInject, String podRev) {
      this(cluster, LINKERD, Map.of(), nsInject, nsRev, podInject, podRev);
    }

    @Override
    public String toString() {
      return String.format(
          "%s |%s ns inject=%s rev=%s | pod inject=%s rev=%s",
          cluster,
          flavour == ISTIO ? " istio " + istioLabels + " |" : "",
          nsInject,
          nsRev,
          podInject,
          podRev);
    }

    /**
     * The namespace's labels with the routing label the label writer writes ({@link
     * InjectionLabels#wanted}): the webhook's own reading of its annotations and labels.
     */
    Map<String, String> namespaceLabels() {
      Map<String, String> labels = new LinkedHashMap<>(userLabels());
      InjectionLabels.wanted(unlabelled(), flavour, RouteResolver.of(flavour), cluster.revisions())
          .ifPresent(v -> labels.put(RevisionNames.ROUTE_LABEL, v));
      return labels;
    }

    private Map<String, String> userLabels() {
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("kubernetes.io/metadata.name", "shop");
      labels.putAll(istioLabels);
      return labels;
    }

    private Namespace unlabelled() {
      return namespace(userLabels());
    }

    Namespace namespace() {
      return namespace(namespaceLabels());
    }

    private Namespace namespace(Map<String, String> labels) {
      Map<String, String> annotations = new LinkedHashMap<>();
      if (nsInject != null) {
        annotations.put("inject", nsInject);
      }
      if (nsRev != null) {
        annotations.put(RevisionNames.REV, nsRev);
      }
      return new NamespaceBuilder()
          .withNewMetadata()
          .withName("shop")
          .withLabels(labels)
          .withAnnotations(annotations)
          .endMetadata()
          .build();
    }

    Map<String, String> podAnnotations() {
      Map<String, String> annotations = new LinkedHashMap<>();
      if (podInject != null) {
        annotations.put("inject", podInject);
      }
      if (podRev != null) {
        annotations.put(RevisionNames.REV, podRev);
      }
      return annotations;
    }

    /** The pod as the API server hands it to CEL ({@code object}). */
    Map<String, Object> pod() {
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("name", "web");
      metadata.put("namespace", "shop");
      if (!podAnnotations().isEmpty()) {
        metadata.put("annotations", podAnnotations());
      }
      return Map.of(
          "metadata",
          metadata,
          "spec",
          Map.of("containers", List.of(Map.of("name", "app", "image", "shop/web:1"))));
    }

    /**
     * Whether the namespace opted in, by the contract: its inject annotation and, in the Istio
     * flavour, its labels as istiod reads them (istio-injection alone when present, else a
     * non-empty istio.io/rev); any of them saying disabled wins.
     */
    boolean labelled() {
      List<Boolean> says = new ArrayList<>();
      if (nsInject != null) {
        says.add("enabled".equals(nsInject));
      }
      String injection = istioLabels.get("istio-injection");
      String rev = istioLabels.get("istio.io/rev");
      if (injection != null) {
        says.add("enabled".equals(injection));
      } else if (rev != null && !rev.isEmpty()) {
        says.add(true);
      }
      return !says.isEmpty() && !says.contains(false);
    }

    /**
     * The name the pod asks for: its own rev; else its namespace's (in the Istio flavour
     * istio-injection: enabled, the tag default, then istio.io/rev, before the annotation); else
     * the tag default.
     */
    String effectiveName() {
      if (podRev != null) {
        return podRev;
      }
      if ("enabled".equals(istioLabels.get("istio-injection"))) {
        return RevisionNames.DEFAULT;
      }
      if (!istioLabels.containsKey("istio-injection") && istioLabels.get("istio.io/rev") != null) {
        return istioLabels.get("istio.io/rev");
      }
      return nsRev != null ? nsRev : RevisionNames.DEFAULT;
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Cluster cluster : CLUSTERS) {
      List<String> revs = new ArrayList<>();
      revs.add(null);
      revs.addAll(cluster.names());
      for (String nsInject : Arrays.asList("enabled", "disabled", null)) {
        for (String nsRev : revs) {
          for (String podInject : Arrays.asList(null, "enabled", "disabled")) {
            for (String podRev : revs) {
              out.add(Arguments.of(new Case(cluster, nsInject, nsRev, podInject, podRev)));
            }
          }
        }
      }
    }
    return out.stream();
  }

  /** The Istio flavour's namespace labels: none, istio-injection, istio.io/rev, and both. */
  static List<Map<String, String>> istioLabels(Cluster cluster) {
    List<Map<String, String>> out = new ArrayList<>();
    out.add(Map.of());
    out.add(Map.of("istio-injection", "enabled"));
    out.add(Map.of("istio-injection", "disabled"));
    for (String name : cluster.names()) {
      out.add(Map.of("istio.io/rev", name));
    }
    out.add(Map.of("istio-injection", "enabled", "istio.io/rev", "canary"));
    return out;
  }

  /**
   * The Istio flavour's axis, in two clusters (one whose tag default points at a revision called
   * default, one without such a revision): the namespace's Istio labels against its inject, its rev
   * (none, or a tag the labels may contradict) and the pod's inject and rev.
   */
  static Stream<Arguments> istioCases() {
    List<Arguments> out = new ArrayList<>();
    for (Cluster cluster : List.of(CLUSTERS.get(0), CLUSTERS.get(2))) {
      List<String> revs = new ArrayList<>();
      revs.add(null);
      revs.addAll(cluster.names());
      for (Map<String, String> labels : istioLabels(cluster)) {
        for (String nsInject : Arrays.asList("enabled", "disabled", null)) {
          for (String nsRev : Arrays.asList(null, "prod")) {
            for (String podInject : Arrays.asList(null, "enabled", "disabled")) {
              for (String podRev : revs) {
                out.add(
                    Arguments.of(
                        new Case(cluster, ISTIO, labels, nsInject, nsRev, podInject, podRev)));
              }
            }
          }
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("istioCases")
  void inTheIstioFlavourItsNamespaceLabelsRouteAsIstiodAndStillOneEntryFailsClosed(Case c) {
    assertThat(violations(c, configurations(c.cluster(), true))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void exactlyOneReleaseFailsClosedForAPodThatAsksForAServedName(Case c) {
    assertThat(violations(c, configurations(c.cluster()))).isEmpty();
  }

  /** Every case of the table, counted, so a change to the table shows up. */
  @Test
  void theTableCoversEveryCombination() {
    // 3 namespace opt-ins x 3 pod opt-ins x (names + none)^2, with 4 names in the first two
    // clusters (canary, default, prod, nosuch) and 5 in the others (canary, stable, default, prod,
    // nosuch)
    assertThat(cases().count()).isEqualTo(3 * 3 * (25 + 25 + 36 + 36));
    // Istio: (4 + names) label sets x 3 inject x 2 rev x 3 pod inject x (names + none), with 4
    // names in the first cluster and 5 in the other
    assertThat(istioCases().count()).isEqualTo(8 * 3 * 2 * 3 * 5 + 9 * 3 * 2 * 3 * 6);
  }

  /**
   * The table can fail: without the condition that keeps the tag default's fail-closed entry from
   * pods naming another revision, a pod naming canary in a namespace following the tag default
   * meets two Fail entries, and the rule says so.
   */
  @Test
  void theRuleSeesAnEntryThatLostItsRevCondition() {
    Cluster cluster = CLUSTERS.get(0);
    List<Configuration> broken = new ArrayList<>();
    for (Configuration conf : configurations(cluster)) {
      JsonNode copy = conf.mwc().deepCopy();
      if (conf.name().equals(RevisionNames.tagObjectName("default"))) {
        for (JsonNode w : copy.path("webhooks")) {
          if (w.path("name").asText().equals(RouteEntries.ROUTED)) {
            ArrayNode conditions = (ArrayNode) w.path("matchConditions");
            conditions.remove(0);
          }
        }
      }
      broken.add(new Configuration(conf.name(), copy, conf.reaches()));
    }
    Case c = new Case(cluster, "enabled", null, null, "canary");
    assertThat(violations(c, configurations(cluster))).isEmpty();
    assertThat(violations(c, broken))
        .anyMatch(v -> v.contains("exactly one Fail entry"))
        .anyMatch(v -> v.contains("more than one configuration"));
  }

  /** What breaks the rule in case {@code c}, one line each; empty when it holds. */
  static List<String> violations(Case c, List<Configuration> configurations) {
    Map<String, String> nsLabels = c.namespaceLabels();
    Map<String, Object> pod = c.pod();
    List<String> fail = new ArrayList<>();
    List<Configuration> failConfigs = new ArrayList<>();
    List<JsonNode> failEntries = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    boolean unroutedIgnore = false;
    for (Configuration conf : configurations) {
      for (JsonNode w : conf.mwc().path("webhooks")) {
        if (!WebhookRoutes.calls(w, nsLabels, pod)) {
          continue;
        }
        String entry = conf.name() + "/" + w.path("name").asText();
        if (w.path("failurePolicy").asText().equals("Fail")) {
          fail.add(entry);
          failEntries.add(w);
          if (!failConfigs.contains(conf)) {
            failConfigs.add(conf);
          }
        } else {
          if (!w.path("failurePolicy").asText().equals("Ignore")
              || !WebhookRoutes.path(w).endsWith("/mutate/unrouted")) {
            problems.add(entry + " is called, neither Fail nor Ignore to /mutate/unrouted");
          }
          unroutedIgnore = true;
        }
      }
    }
    if (failConfigs.size() > 1) {
      problems.add("more than one configuration is Fail for the pod: " + fail);
    }
    Revisions revisions = c.cluster().revisions();
    String name = c.effectiveName();
    boolean known = revisions.revisionOf(name).isPresent();
    if (!c.labelled()) {
      if (!fail.isEmpty()) {
        problems.add("a namespace that did not opt in, yet Fail entries: " + fail);
      }
    } else if (!known) {
      if (!fail.isEmpty()) {
        problems.add("name " + name + " is served by no release, yet Fail entries: " + fail);
      }
      if (!unroutedIgnore) {
        problems.add("name " + name + " is served by no release, and no Ignore entry refuses it");
      }
    } else if (fail.size() != 1) {
      problems.add("expected exactly one Fail entry for " + name + ", got " + fail);
    } else {
      String revision = revisions.revisionOf(name).orElseThrow();
      String servedBy =
          c.cluster().tags().containsKey(name)
              ? RevisionNames.tagObjectName(name)
              : c.cluster().serving(revision).fullname();
      Configuration conf = failConfigs.get(0);
      if (!conf.name().equals(servedBy)) {
        problems.add("the Fail entry for " + name + " is " + fail + ", not in " + servedBy);
      }
      Release target = c.cluster().serving(revision);
      JsonNode service = failEntries.get(0).at("/clientConfig/service");
      if (!service.path("name").asText().equals(target.fullname())
          || !service.path("namespace").asText().equals(target.namespace())
          || !service.path("path").asText().equals("/mutate")) {
        problems.add(fail + " calls " + service + ", not release " + target.fullname());
      }
      // the webhook's own resolver names the same revision for the pod
      Route route =
          RouteResolver.of(c.flavour()).route(c.podAnnotations(), c.namespace(), revisions, "x");
      if (!(route instanceof Route.Resolved r) || !r.revision().equals(revision)) {
        problems.add("RouteResolver says " + route.describe() + ", the API server " + revision);
      }
    }
    return problems;
  }

  // ---- the chart's route entries are RouteEntries' ------------------------------------------

  static Stream<Arguments> routeEntryValues() {
    return Stream.of(
        Arguments.of("defaults", (UnaryOperator<com.marcnuri.helm.TemplateCommand>) t -> t),
        Arguments.of(
            "url, Ignore, selectors and conditions",
            (UnaryOperator<com.marcnuri.helm.TemplateCommand>)
                t ->
                    t.set("admissionWebhook.url", "https://10.0.0.5:8443/mutate")
                        .set("admissionWebhook.failurePolicy", "Ignore")
                        .set("admissionWebhook.timeoutSeconds", 5)
                        .set("admissionWebhook.excludedNamespaces[0]", "kube-public")
                        .set("admissionWebhook.namespaceSelectorExpressions[0].key", "team")
                        .set("admissionWebhook.namespaceSelectorExpressions[0].operator", "Exists")
                        // one on the routing label: the route entries leave it out, as RouteEntries
                        .set(
                            "admissionWebhook.namespaceSelectorExpressions[1].key",
                            RevisionNames.ROUTE_LABEL)
                        .set("admissionWebhook.namespaceSelectorExpressions[1].operator", "Exists")
                        .set("admissionWebhook.objectSelector.matchLabels.team", "shop")
                        .set("admissionWebhook.matchConditions[0].name", "not-host-network")
                        .set(
                            "admissionWebhook.matchConditions[0].expression",
                            "!has(object.spec.hostNetwork) || !object.spec.hostNetwork")),
        Arguments.of(
            "cert-manager, no opt-out label",
            (UnaryOperator<com.marcnuri.helm.TemplateCommand>)
                t -> t.set("tls.mode", "cert-manager").set("admissionWebhook.optOutLabel", "")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("routeEntryValues")
  void theChartsRouteEntriesForItsRevisionAreRouteEntries(
      String description, UnaryOperator<com.marcnuri.helm.TemplateCommand> values)
      throws IOException {
    JsonNode mwc =
        find(
            render(t -> values.apply(t).set("revision", "canary")),
            "MutatingWebhookConfiguration",
            Charts.FULLNAME);
    String policy = mwc.at("/metadata/annotations/mesh-injector.io~1failure-policy").asText();
    MutatingWebhook catchAll = TagWebhooks.catchAll(WebhookRoutes.model(mwc)).orElseThrow();

    List<JsonNode> expected = new ArrayList<>();
    for (MutatingWebhook w : RouteEntries.forName("canary", catchAll, policy)) {
      expected.add(WebhookRoutes.tree(w));
    }
    expected.add(WebhookRoutes.tree(catchAll));
    // both through the model, so only what the API server reads is compared
    List<JsonNode> actual = new ArrayList<>();
    for (MutatingWebhook w : WebhookRoutes.model(mwc).getWebhooks()) {
      actual.add(WebhookRoutes.tree(w));
    }
    assertThat(actual).containsExactlyElementsOf(expected);
    assertThat(texts(actual, "name"))
        .containsExactly(
            RouteEntries.ROUTED,
            RouteEntries.POD_REV,
            RouteEntries.OTHER_REV,
            RouteEntries.CATCH_ALL);
    // and a tag pointing at canary is the same three entries for the tag's name
    JsonNode tag = WebhookRoutes.tag("prod", mwc);
    assertThat(tag.path("webhooks")).hasSize(3);
    for (int i = 0; i < 3; i++) {
      ObjectNode fromTag = (ObjectNode) tag.path("webhooks").get(i).deepCopy();
      ObjectNode own = (ObjectNode) actual.get(i).deepCopy();
      for (ObjectNode w : List.of(fromTag, own)) {
        w.remove("namespaceSelector");
        ((ArrayNode) w.path("matchConditions")).remove(0);
      }
      assertThat(fromTag)
          .as("%s but its name's selector and condition", description)
          .isEqualTo(own);
    }
  }

  private static List<String> texts(List<JsonNode> nodes, String field) {
    return nodes.stream().map(n -> n.path(field).asText()).toList();
  }
}
