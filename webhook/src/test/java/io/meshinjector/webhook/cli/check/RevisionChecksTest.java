package io.meshinjector.webhook.cli.check;

import static io.meshinjector.webhook.support.RevisionFixtures.namespace;
import static io.meshinjector.webhook.support.RevisionFixtures.serve;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.meshinjector.engine.check.CheckResult;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.cli.ExitCodes;
import io.meshinjector.webhook.revisions.TagWebhooks;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.RevisionFixtures;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The revisions group of {@code check} and {@code check --retire}, against fabric8's CRUD mock
 * server: what each opted-in namespace's new pods get and what its running pods carry, running pods
 * without a proxy, the workloads to restart, every inconsistency that fails, and the retire verdict
 * with each of its reasons.
 */
@EnableKubernetesMockClient(crud = true)
class RevisionChecksTest {
  static final MeshConfig CONFIG = ConfigLoader.fromYaml("revisions: {name: 1-2}\n");

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path tmp;

  final List<Pod> pods = new ArrayList<>();

  // ---- fixtures ----

  /** Revisions 1-1 and 1-2, tag default on 1-1 and tag prod on 1-2. */
  void twoRevisionsAndTheirTags() {
    MutatingWebhookConfiguration one = serve(client, "1-1", "AAAA", 1);
    MutatingWebhookConfiguration two = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, RevisionNames.DEFAULT, one);
    RevisionFixtures.tag(client, "prod", two);
  }

  static Map<String, String> enabled(String rev) {
    Map<String, String> a = new HashMap<>();
    a.put("inject", "enabled");
    if (rev != null) {
      a.put(RevisionNames.REV, rev);
    }
    return a;
  }

  PodBuilder pod(String ns, String name, String ownerKind, String owner) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNodeName("n1")
            .addNewContainer()
            .withName("app")
            .withImage("app:1")
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .endStatus();
    if (owner != null) {
      b.editMetadata()
          .addNewOwnerReference()
          .withApiVersion("apps/v1")
          .withKind(ownerKind)
          .withName(owner)
          .withUid("uid-" + owner)
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    return b;
  }

  /** A running pod the webhook injected, recording {@code revision} (null: before revisions). */
  void injected(String ns, String name, String ownerKind, String owner, String revision) {
    PodBuilder b = pod(ns, name, ownerKind, owner);
    b.editMetadata()
        .addToAnnotations(Annotations.DECISION, "init/nft native-sidecar await")
        .endMetadata();
    if (revision != null) {
      b.editMetadata().addToAnnotations(RevisionNames.REVISION, revision).endMetadata();
    }
    b.editSpec().addNewContainer().withName("linkerd-proxy").endContainer().endSpec();
    pods.add(b.build());
  }

  void running(PodBuilder b) {
    pods.add(b.build());
  }

  void create(HasMetadata o) {
    client.resource(o).create();
  }

  static PodTemplateSpec template(Map<String, String> annotations) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("app")
        .withImage("app:1")
        .endContainer()
        .endSpec()
        .build();
  }

  void deployment(String ns, String name, Map<String, String> annotations) {
    create(
        new DeploymentBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withTemplate(template(annotations))
            .endSpec()
            .build());
  }

  void replicaSet(String ns, String name, String deployment) {
    ReplicaSetBuilder b =
        new ReplicaSetBuilder()
            .withNewMetadata()
            .withNamespace(ns)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withTemplate(template(Map.of()))
            .endSpec();
    if (deployment != null) {
      b.editMetadata()
          .addNewOwnerReference()
          .withApiVersion("apps/v1")
          .withKind("Deployment")
          .withName(deployment)
          .withUid("uid-" + deployment)
          .withController(true)
          .endOwnerReference()
          .endMetadata();
    }
    create(b.build());
  }

  /** The pods list as the API server answers it (the CRUD mock does not select on status). */
  void answerPods(String fieldSelector) {
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/pods?resourceVersion=0&fieldSelector="
                + URLEncoder.encode(fieldSelector, StandardCharsets.UTF_8))
        .andReturn(
            200, new PodListBuilder().withNewMetadata().endMetadata().withItems(pods).build())
        .always();
  }

  List<CheckResult> group() {
    return group(CONFIG);
  }

  List<CheckResult> group(MeshConfig config) {
    answerPods("status.phase=Running");
    return new ClusterChecks(client, "mesh-1-2", Clock.systemUTC())
        .installed(Optional.of(config)).stream()
            .filter(r -> r.group().equals(RevisionChecks.GROUP))
            .toList();
  }

  static CheckResult named(List<CheckResult> lines, String name) {
    return lines.stream()
        .filter(r -> r.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line '" + name + "' in " + lines));
  }

  // ---- after install ----

  @Test
  void eachNamespaceSaysWhatItsNewPodsGetAndWhatItsRunningPodsCarry() {
    twoRevisionsAndTheirTags();
    namespace(client, "shop", enabled("prod"), "prod");
    namespace(client, "web", enabled(null), RevisionNames.DEFAULT_ROUTE);
    namespace(client, "quiet", Map.of(), null);
    replicaSet("shop", "api-5f6d", "api");
    injected("shop", "api-5f6d-a", "ReplicaSet", "api-5f6d", "1-1");
    injected("shop", "api-5f6d-b", "ReplicaSet", "api-5f6d", "1-2");
    injected("shop", "old-7c-a", "ReplicaSet", "old-7c", null);
    injected("web", "agent-x", "DaemonSet", "agent", "1-2");

    List<CheckResult> lines = group();

    CheckResult consistent = named(lines, "revisions and tags are consistent");
    assertThat(consistent.status()).isEqualTo("pass");
    assertThat(consistent.detail())
        .isEqualTo(
            "served: 1-1 (mesh-1-1/mi-1-1), 1-2 (mesh-1-2/mi-1-2); tags: default -> 1-1, prod ->"
                + " 1-2");
    CheckResult shop = named(lines, "namespace shop: new pods get revision 1-2 (tag prod)");
    assertThat(shop.status()).isEqualTo("pass");
    assertThat(shop.detail())
        .isEqualTo(
            "asks for prod (namespace shop's mesh-injector.io/rev); running injected pods: 1-1: 1,"
                + " 1-2: 1, unrecorded (injected before revisions): 1");
    assertThat(named(lines, "namespace web: new pods get revision 1-1 (tag default)").detail())
        .isEqualTo(
            "asks for default (no mesh-injector.io/rev: the default tag); running injected pods:"
                + " 1-2: 1");
    assertThat(lines).noneMatch(r -> r.name().contains("namespace quiet"));
  }

  /**
   * The Istio flavour: a namespace's istio.io/rev opts it in and names its route; one carrying
   * istio-injection as well follows the tag default, as with istiod, and check warns about it.
   */
  @Test
  void inTheIstioFlavourTheNamespacesIstioLabelsRouteAndBothLabelsAreAWarning() {
    twoRevisionsAndTheirTags();
    labelled("mesh", Map.of("istio.io/rev", "prod"), "prod");
    labelled("both", Map.of("istio-injection", "enabled", "istio.io/rev", "prod"), "enabled");
    List<CheckResult> lines = group(ConfigLoader.fromYaml("mesh: istio\nrevisions: {name: 1-2}\n"));

    assertThat(named(lines, "namespace mesh: new pods get revision 1-2 (tag prod)").detail())
        .startsWith("asks for prod (namespace mesh's label istio.io/rev)");
    assertThat(named(lines, "namespace both: new pods get revision 1-1 (tag default)").detail())
        .startsWith("asks for default (namespace both's label istio-injection=enabled)");
    CheckResult disagree = named(lines, "1 namespace selections disagree");
    assertThat(disagree.status()).isEqualTo("warn");
    assertThat(disagree.detail())
        .contains("namespace both carries both istio-injection=enabled and istio.io/rev=prod");
    // the Linkerd flavour reads no Istio label: neither namespace opted in
    List<CheckResult> linkerd = group();
    assertThat(linkerd).noneMatch(r -> r.name().startsWith("namespace mesh"));
    assertThat(linkerd).noneMatch(r -> r.name().contains("disagree"));
  }

  void labelled(String name, Map<String, String> labels, String route) {
    Map<String, String> all = new HashMap<>(labels);
    all.put(RevisionNames.ROUTE_LABEL, route);
    create(
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(all)
            .endMetadata()
            .build());
  }

  @Test
  void workloadsWhosePodsCarryAnotherRevisionAreNamedWithTheirRestart() {
    twoRevisionsAndTheirTags();
    namespace(client, "shop", enabled("prod"), "prod");
    namespace(client, "web", enabled(null), RevisionNames.DEFAULT_ROUTE);
    replicaSet("shop", "api-5f6d", "api");
    injected("shop", "api-5f6d-a", "ReplicaSet", "api-5f6d", "1-1");
    injected("shop", "api-5f6d-b", "ReplicaSet", "api-5f6d", "1-1");
    injected("shop", "fresh-5f6d-a", "ReplicaSet", "fresh-5f6d", "1-2");
    // its own mesh-injector.io/rev wins over the namespace's: it is where it asked to be
    PodBuilder pinned = pod("shop", "pinned-0", "StatefulSet", "pinned");
    pinned
        .editMetadata()
        .addToAnnotations(Annotations.DECISION, "init/nft")
        .addToAnnotations(RevisionNames.REVISION, "1-1")
        .addToAnnotations(RevisionNames.REV, "1-1")
        .endMetadata();
    running(pinned);
    injected("web", "agent-x", "DaemonSet", "agent", "1-2");
    // a ReplicaSet the check cannot tie to a Deployment (not in the cluster): named as itself
    injected("web", "lone-9f-a", "ReplicaSet", "lone-9f", "1-2");

    List<CheckResult> lines = group();

    CheckResult api =
        named(
            lines,
            "2 pods of Deployment/api in namespace shop run another revision than new pods get");
    assertThat(api.status()).isEqualTo("warn");
    assertThat(api.detail()).isEqualTo("they carry revision 1-1; new pods get revision 1-2");
    assertThat(api.hint()).isEqualTo("kubectl -n shop rollout restart deployment/api");
    assertThat(
            named(
                    lines,
                    "1 pods of DaemonSet/agent in namespace web run another revision than new pods"
                        + " get")
                .hint())
        .isEqualTo("kubectl -n web rollout restart daemonset/agent");
    assertThat(
            named(
                    lines,
                    "1 pods of ReplicaSet/lone-9f in namespace web run another revision than new"
                        + " pods get")
                .hint())
        .contains("kubectl -n web delete pods of replicaset/lone-9f");
    assertThat(lines).noneMatch(r -> r.name().contains("pinned") || r.name().contains("fresh"));
  }

  @Test
  void runningPodsWithoutTheProxyInAnOptedInNamespaceAreAWarning() {
    twoRevisionsAndTheirTags();
    namespace(client, "shop", enabled("prod"), "prod");
    namespace(client, "quiet", Map.of(), null);
    running(pod("shop", "naked", null, null));
    replicaSet("shop", "web-5f6d", "web");
    running(pod("shop", "web-5f6d-a", "ReplicaSet", "web-5f6d"));
    // these do not count: they opted out, share the node's network, are injected by another
    // means, or live in a namespace that did not opt in
    PodBuilder optOut = pod("shop", "opted-out", null, null);
    optOut.editMetadata().addToAnnotations("inject", "disabled").endMetadata();
    running(optOut);
    PodBuilder host = pod("shop", "host", null, null);
    host.editSpec().withHostNetwork(true).endSpec();
    running(host);
    PodBuilder meshed = pod("shop", "meshed", null, null);
    meshed.editSpec().addNewContainer().withName("linkerd-proxy").endContainer().endSpec();
    running(meshed);
    running(pod("quiet", "q", null, null));

    List<CheckResult> lines = group();

    CheckResult shop = named(lines, "2 running pods in namespace shop have no proxy");
    assertThat(shop.status()).isEqualTo("warn");
    assertThat(shop.detail())
        .contains("created before it did, or while the injector was bypassed (linkerd2#4015)")
        .endsWith(": naked, web-5f6d-a");
    assertThat(shop.hint())
        .contains("kubectl -n shop delete pod/naked")
        .contains("kubectl -n shop rollout restart deployment/web");
    assertThat(lines).noneMatch(r -> r.name().contains("namespace quiet have no proxy"));
  }

  @Test
  void everyInconsistencyFails() {
    MutatingWebhookConfiguration one = serve(client, "1-1", "AAAA", 1);
    MutatingWebhookConfiguration two = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, RevisionNames.DEFAULT, one);
    // two releases installed with one revision name
    MutatingWebhookConfiguration twin = RevisionFixtures.revision("1-2", "CCCC");
    twin.getMetadata().setName("another-1-2");
    create(twin);
    // a tag whose revision was uninstalled
    MutatingWebhookConfiguration gone = TagWebhooks.pointing("gone", one, null);
    gone.getMetadata().getLabels().put(RevisionNames.REVISION_LABEL, "0-9");
    create(gone);
    // a tag named as a served revision
    RevisionFixtures.tag(client, "1-1", two);
    namespace(client, "typo", enabled("1-3"), "1-3");
    namespace(client, "shop", enabled(null), RevisionNames.DEFAULT_ROUTE);
    namespace(client, "quiet", Map.of(), null);
    deployment("shop", "canary", Map.of(RevisionNames.REV, "cnary"));
    deployment("shop", "ok", Map.of(RevisionNames.REV, "1-2"));
    // not opted in: its name is never read
    deployment("quiet", "idle", Map.of(RevisionNames.REV, "nope"));

    List<CheckResult> lines = group();

    assertThat(lines.stream().filter(r -> r.status().equals("fail")).map(CheckResult::name))
        .containsExactlyInAnyOrder(
            "revision 1-2 is claimed by one webhook configuration",
            "tag gone points at a served revision",
            "tag 1-1 has a name of its own",
            "1 namespaces name a revision or tag no release serves",
            "1 pod templates name a revision or tag no release serves");
    assertThat(named(lines, "revision 1-2 is claimed by one webhook configuration").detail())
        .isEqualTo("claimed by another-1-2, mi-1-2");
    assertThat(named(lines, "tag gone points at a served revision").detail())
        .isEqualTo("it points at revision 0-9, which no release serves");
    assertThat(named(lines, "1 namespaces name a revision or tag no release serves").detail())
        .startsWith("namespace typo's mesh-injector.io/rev names revision 1-3, which no release");
    assertThat(named(lines, "1 pod templates name a revision or tag no release serves").detail())
        .startsWith(
            "shop/Deployment/canary's mesh-injector.io/rev names revision cnary, which no"
                + " release serves");
    assertThat(lines).noneMatch(r -> r.name().equals("revisions and tags are consistent"));
  }

  @Test
  void aClusterFromBeforeRevisionsIsOneReleaseServingAll() {
    namespace(client, "shop", enabled(null), RevisionNames.DEFAULT_ROUTE);
    injected("shop", "api-5f6d-a", "ReplicaSet", "api-5f6d", null);
    injected("shop", "api-5f6d-b", "ReplicaSet", "api-5f6d", "1-2");

    List<CheckResult> lines = group();

    assertThat(named(lines, "revisions and tags are consistent").detail())
        .startsWith("no webhook configuration is labelled mesh-injector.io/revision");
    // this release's revision (the config's revisions.name) is every namespace's
    assertThat(
            named(
                    lines,
                    "namespace shop: new pods get revision 1-2 (no webhook configuration names a"
                        + " revision: one release serves all)")
                .detail())
        .endsWith("running injected pods: 1-2: 1, unrecorded (injected before revisions): 1");
    assertThat(lines).extracting(CheckResult::status).containsOnly("pass");
  }

  // ---- check --retire ----

  Cli.Run retire(String revision) throws Exception {
    answerPods(RunningPods.NOT_FINISHED);
    return Cli.run(
        "check",
        "--retire",
        revision,
        "--kubeconfig",
        RevisionFixtures.kubeconfig(tmp, client).toString(),
        "-o",
        "json");
  }

  @Test
  void aRevisionStillReachedOrRunIsNotRetiredAndEveryReasonIsNamed() throws Exception {
    twoRevisionsAndTheirTags();
    // web follows tag default (on 1-1); stale's label still routes to 1-1 though it now asks for
    // prod; legacy names 1-1 itself
    namespace(client, "web", enabled(null), RevisionNames.DEFAULT_ROUTE);
    namespace(client, "stale", enabled("prod"), "1-1");
    namespace(client, "legacy", enabled("1-1"), "1-1");
    namespace(client, "shop", enabled("prod"), "prod");
    deployment("shop", "old", Map.of(RevisionNames.REV, "1-1"));
    deployment("shop", "viadefault", Map.of(RevisionNames.REV, "default"));
    deployment("shop", "new", Map.of(RevisionNames.REV, "prod"));
    injected("shop", "api-5f6d-a", "ReplicaSet", "api-5f6d", "1-1");
    injected("shop", "api-5f6d-b", "ReplicaSet", "api-5f6d", "1-2");

    Cli.Run run = retire("1-1");

    assertThat(run.code()).as(run.err()).isEqualTo(ExitCodes.CHECK_FAILED);
    assertThat(run.out())
        .contains("\"check\" : \"revision 1-1 may be retired\"")
        .contains("\"status\" : \"fail\"")
        .contains("not yet (release mesh-1-1/mi-1-1): tags point at it: default")
        .contains("3 namespaces route to it: legacy, stale, web (via tag default)")
        .contains("2 pod templates name it or its tags: shop/Deployment/old (1-1),")
        .contains("shop/Deployment/viadefault (default)")
        .contains("1 running pods carry it (shop: 1)")
        .doesNotContain("shop/Deployment/new");
  }

  @Test
  void aRevisionNothingReachesOrRunsMayBeRetired() throws Exception {
    twoRevisionsAndTheirTags();
    serve(client, "1-0", "ZZZZ", 1);
    namespace(client, "shop", enabled("prod"), "prod");
    namespace(client, "web", enabled(null), RevisionNames.DEFAULT_ROUTE);
    injected("shop", "api-5f6d-b", "ReplicaSet", "api-5f6d", "1-2");

    Cli.Run run = retire("1-0");

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("\"check\" : \"revision 1-0 may be retired\"")
        .contains("\"status\" : \"pass\"")
        .contains("(release mesh-1-0/mi-1-0)");
  }

  @Test
  void retireWithPreIsAUsageError() {
    Cli.Run run = Cli.run("check", "--pre", "--retire", "1-1");
    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--retire asks of an installed cluster: drop --pre");
  }
}
