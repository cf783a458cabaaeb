package io.meshinjector.webhook.cli;

import static io.meshinjector.webhook.support.RevisionFixtures.apiServer;
import static io.meshinjector.webhook.support.RevisionFixtures.namespace;
import static io.meshinjector.webhook.support.RevisionFixtures.serve;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.support.Cli;
import io.meshinjector.webhook.support.RevisionFixtures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tag set}, {@code tag list} and {@code tag remove} against fabric8's CRUD mock server:
 * creating and moving a tag (one update, at the version read, with both CA bundles), and every
 * refusal, after which nothing in the cluster has changed.
 */
@EnableKubernetesMockClient(crud = true)
class TagCommandTest {
  static final String PROD = RevisionNames.tagObjectName("prod");

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path tmp;
  String kubeconfig;

  @BeforeEach
  void cluster() throws Exception {
    kubeconfig = RevisionFixtures.kubeconfig(tmp, client).toString();
    namespace(client, "shop", Map.of("inject", "enabled", RevisionNames.REV, "prod"), "prod");
    namespace(client, "cart", Map.of("inject", "enabled", RevisionNames.REV, "prod"), "prod");
    namespace(client, "web", Map.of("inject", "enabled"), RevisionNames.DEFAULT_ROUTE);
  }

  Cli.Run tag(String... args) {
    List<String> all = new ArrayList<>(List.of("tag"));
    all.addAll(List.of(args));
    all.add("--kubeconfig");
    all.add(kubeconfig);
    return Cli.run(all.toArray(String[]::new));
  }

  MutatingWebhookConfiguration stored(String name) {
    return client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name).get();
  }

  @Test
  void createsATagPointingAtARevisionThatAnswers() {
    apiServer(server, 31);
    MutatingWebhookConfiguration rev = serve(client, "1-2", "BBBB", 1);

    Cli.Run run = tag("set", "prod", "--revision", "1-2");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("created tag prod: (new) -> revision 1-2 (release mesh-1-2/mi-1-2)")
        .contains("2 namespaces follow tag prod (mesh-injector.io/injection=prod)")
        .contains("Running pods are not touched: mesh-injector check lists the workloads");
    MutatingWebhookConfiguration tag = stored(PROD);
    assertThat(tag.getMetadata().getLabels())
        .containsEntry(RevisionNames.TAG_LABEL, "prod")
        .containsEntry(RevisionNames.REVISION_LABEL, "1-2");
    assertThat(tag.getMetadata().getOwnerReferences().get(0).getUid())
        .isEqualTo(rev.getMetadata().getUid());
    assertThat(tag.getWebhooks()).hasSize(3);
    for (MutatingWebhook w : tag.getWebhooks()) {
      assertThat(RevisionFixtures.pem(w.getClientConfig().getCaBundle()))
          .contains("BBBB")
          .doesNotContain("AAAA");
    }
  }

  @Test
  void movesATagInOneUpdateAtTheVersionReadKeepingBothBundles() throws Exception {
    apiServer(server, 31);
    MutatingWebhookConfiguration old = serve(client, "1-1", "AAAA", 1);
    MutatingWebhookConfiguration rev = serve(client, "1-2", "BBBB", 1);
    String readVersion =
        RevisionFixtures.tag(client, "prod", old).getMetadata().getResourceVersion();
    // the requests so far are the set-up's
    for (int i = server.getRequestCount(); i > 0; i--) {
      server.takeRequest();
    }

    Cli.Run run = tag("set", "prod", "--revision", "1-2");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("moved tag prod: revision 1-1 -> revision 1-2 (release mesh-1-2/mi-1-2)")
        .contains("2 namespaces follow tag prod");
    MutatingWebhookConfiguration tag = stored(PROD);
    assertThat(tag.getMetadata().getLabels()).containsEntry(RevisionNames.REVISION_LABEL, "1-2");
    assertThat(tag.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getName()).isEqualTo("mi-1-2");
              assertThat(o.getUid()).isEqualTo(rev.getMetadata().getUid());
            });
    for (MutatingWebhook w : tag.getWebhooks()) {
      // the new revision's first, the old one's kept for API servers with a cached connection
      assertThat(RevisionFixtures.pem(w.getClientConfig().getCaBundle()))
          .containsSubsequence("BBBB", "AAAA");
      assertThat(w.getClientConfig().getService().getName()).isEqualTo("mi-1-2");
    }
    // exactly one write: a PUT of the tag (that it is guarded: the next test)
    List<RecordedRequest> writes = new ArrayList<>();
    for (RecordedRequest r = server.takeRequest(1, TimeUnit.SECONDS);
        r != null;
        r = server.takeRequest(1, TimeUnit.SECONDS)) {
      if (!r.getMethod().equals("GET")) {
        writes.add(r);
      }
    }
    assertThat(writes).hasSize(1);
    assertThat(writes.get(0).getMethod()).isEqualTo("PUT");
    assertThat(writes.get(0).getPath()).endsWith("/mutatingwebhookconfigurations/" + PROD);
  }

  @Test
  void aTagMovedMeanwhileIsNotOverwritten() {
    apiServer(server, 31);
    MutatingWebhookConfiguration old = serve(client, "1-1", "AAAA", 1);
    serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, "prod", old);
    // the command reads the tag as it was; by the time it writes, someone else has changed it,
    // and the mock server, as the API server, refuses a PUT at a stale resourceVersion
    var webhooks = client.admissionRegistration().v1().mutatingWebhookConfigurations();
    var asRead = webhooks.withLabel(RevisionNames.REVISION_LABEL).list();
    webhooks
        .withName(PROD)
        .edit(
            m -> {
              m.getMetadata().getLabels().put("moved-by", "someone-else");
              return m;
            });
    server
        .expect()
        .get()
        .withPath(
            "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
                + "?labelSelector=mesh-injector.io%2Frevision")
        .andReturn(200, asRead)
        .once();

    Cli.Run run = tag("set", "prod", "--revision", "1-2");

    assertThat(run.code()).isEqualTo(ExitCodes.TAG_REFUSED);
    assertThat(run.err())
        .contains("someone moved tag prod meanwhile (it pointed at revision 1-1 when read)");
    assertThat(stored(PROD).getMetadata().getLabels())
        .containsEntry(RevisionNames.REVISION_LABEL, "1-1")
        .containsEntry("moved-by", "someone-else");
  }

  @Test
  void aDryRunWritesNothing() {
    apiServer(server, 31);
    MutatingWebhookConfiguration old = serve(client, "1-1", "AAAA", 1);
    serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, "prod", old);

    Cli.Run run = tag("set", "prod", "--revision", "1-2", "--dry-run");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("dry run, nothing written: would move tag prod: revision 1-1 -> revision 1-2");
    assertThat(stored(PROD).getMetadata().getLabels())
        .containsEntry(RevisionNames.REVISION_LABEL, "1-1");
  }

  @Test
  void aTagAlreadyThereIsLeftAlone() {
    apiServer(server, 31);
    MutatingWebhookConfiguration rev = serve(client, "1-2", "BBBB", 1);
    String version = RevisionFixtures.tag(client, "prod", rev).getMetadata().getResourceVersion();

    Cli.Run run = tag("set", "prod", "--revision", "1-2");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("tag prod already points at revision 1-2");
    assertThat(stored(PROD).getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  void theDefaultTagMayLeaveTheReleaseInstalledWithoutARevision() {
    apiServer(server, 31);
    // a release from before revisions is the revision "default", reached through the tag default
    MutatingWebhookConfiguration unnamed = serve(client, RevisionNames.DEFAULT, "AAAA", 1);
    RevisionFixtures.tag(client, RevisionNames.DEFAULT, unnamed);
    serve(client, "1-2", "BBBB", 1);

    Cli.Run run = tag("set", "default", "--revision", "1-2");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("moved tag default: revision default -> revision 1-2")
        .contains("1 namespaces follow tag default (mesh-injector.io/injection=enabled)");
  }

  // ---- refusals: exit 6, and the cluster as it was ----

  Cli.Run refused(String... args) {
    Cli.Run run = tag(args);
    assertThat(run.code()).as(run.out() + run.err()).isEqualTo(ExitCodes.TAG_REFUSED);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).startsWith("tag set refused: ");
    return run;
  }

  @Test
  void refusesARevisionNoReleaseServes() {
    apiServer(server, 31);
    serve(client, "1-1", "AAAA", 1);
    assertThat(refused("set", "prod", "--revision", "9-9").err())
        .contains("no release serves revision 9-9")
        .contains("served: 1-1");
    assertThat(stored(PROD)).isNull();
  }

  @Test
  void refusesATagNamedAsAServedRevision() {
    apiServer(server, 31);
    serve(client, "1-1", "AAAA", 1);
    serve(client, "1-2", "BBBB", 1);
    assertThat(refused("set", "1-1", "--revision", "1-2").err())
        .contains("1-1 is the name of a served revision (release mesh-1-1/mi-1-1)");
    assertThat(stored(RevisionNames.tagObjectName("1-1"))).isNull();
  }

  @Test
  void refusesANameThatIsNoTagName() {
    assertThat(refused("set", "Prod_1", "--revision", "1-2").err())
        .contains("'Prod_1' is not a revision or tag name");
    assertThat(refused("set", "enabled", "--revision", "1-2").err())
        .contains("'enabled' is reserved");
  }

  @Test
  void refusesAnApiServerWithoutMatchConditions() {
    apiServer(server, 27);
    serve(client, "1-2", "BBBB", 1);
    assertThat(refused("set", "prod", "--revision", "1-2").err())
        .contains("Kubernetes 1.27 evaluates no matchConditions (1.28+)");
    assertThat(stored(PROD)).isNull();
  }

  @Test
  void refusesARevisionWithoutAReadyReplica() {
    apiServer(server, 31);
    MutatingWebhookConfiguration old = serve(client, "1-1", "AAAA", 1);
    serve(client, "1-2", "BBBB", 0);
    RevisionFixtures.tag(client, "prod", old);
    assertThat(refused("set", "prod", "--revision", "1-2").err())
        .contains(
            "revision 1-2 does not answer: the webhook Deployment of release mesh-1-2/mi-1-2 has"
                + " no ready replica (0 of 2)");
    assertThat(stored(PROD).getMetadata().getLabels())
        .containsEntry(RevisionNames.REVISION_LABEL, "1-1");
  }

  @Test
  void refusesARevisionWhoseReleaseHasNoWebhookDeployment() {
    apiServer(server, 31);
    client
        .admissionRegistration()
        .v1()
        .mutatingWebhookConfigurations()
        .resource(RevisionFixtures.revision("1-2", "BBBB"))
        .create();
    assertThat(refused("set", "prod", "--revision", "1-2").err())
        .contains("release mesh-1-2/mi-1-2 has no webhook Deployment (labelled")
        .contains("app.kubernetes.io/component=webhook");
  }

  @Test
  void refusesARevisionClaimedByTwoConfigurations() {
    apiServer(server, 31);
    serve(client, "1-2", "BBBB", 1);
    MutatingWebhookConfiguration twin = RevisionFixtures.revision("1-2", "CCCC");
    twin.getMetadata().setName("another-1-2");
    client.admissionRegistration().v1().mutatingWebhookConfigurations().resource(twin).create();
    assertThat(refused("set", "prod", "--revision", "1-2").err())
        .contains("revision 1-2 is claimed by 2 webhook configurations (another-1-2, mi-1-2)");
  }

  @Test
  void refusesATagGivenAsTheRevision() {
    apiServer(server, 31);
    MutatingWebhookConfiguration rev = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, "stable", rev);
    assertThat(refused("set", "prod", "--revision", "stable").err())
        .contains("stable is a tag (pointing at revision 1-2), not a revision");
  }

  // ---- list and remove ----

  @Test
  void listsTagsAndServedRevisions() {
    MutatingWebhookConfiguration one = serve(client, "1-1", "AAAA", 1);
    MutatingWebhookConfiguration two = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, "default", one);
    RevisionFixtures.tag(client, "prod", two);

    Cli.Run run = tag("list");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out().lines())
        .containsSubsequence(
            "TAG      REVISION",
            "default  1-1",
            "prod     1-2",
            "",
            "REVISION  RELEASE          WEBHOOK CONFIGURATION",
            "1-1       mesh-1-1/mi-1-1  mi-1-1",
            "1-2       mesh-1-2/mi-1-2  mi-1-2");
  }

  @Test
  void removesATagAndNamesTheNamespacesThatFollowedIt() {
    MutatingWebhookConfiguration rev = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, "prod", rev);

    Cli.Run run = tag("remove", "prod");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("removed tag prod (it pointed at revision 1-2)")
        .contains("2 namespaces followed it: cart, shop")
        .contains("their new pods are refused (no release serves prod)");
    assertThat(stored(PROD)).isNull();
  }

  @Test
  void keepsTheDefaultTagUnlessForced() {
    MutatingWebhookConfiguration rev = serve(client, "1-2", "BBBB", 1);
    RevisionFixtures.tag(client, "default", rev);
    String name = RevisionNames.tagObjectName("default");

    Cli.Run refused = tag("remove", "default");
    assertThat(refused.code()).isEqualTo(ExitCodes.TAG_REFUSED);
    assertThat(refused.err())
        .contains("tag remove refused: tag default is followed by every opted-in namespace")
        .contains("1 namespaces (web) would be left without fail-closed injection")
        .contains("--force");
    assertThat(stored(name)).isNotNull();

    Cli.Run forced = tag("remove", "default", "--force");
    assertThat(forced.code()).as(forced.err()).isZero();
    assertThat(forced.out()).contains("1 namespaces followed it: web");
    assertThat(stored(name)).isNull();
  }

  @Test
  void removingATagThatIsNotThereIsRefused() {
    Cli.Run run = tag("remove", "prod");
    assertThat(run.code()).isEqualTo(ExitCodes.TAG_REFUSED);
    assertThat(run.err()).contains("there is no tag prod");
  }
}
