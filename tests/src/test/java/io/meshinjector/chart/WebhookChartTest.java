package io.meshinjector.chart;

import static io.meshinjector.chart.Charts.FULLNAME;
import static io.meshinjector.chart.Charts.NS;
import static io.meshinjector.chart.Charts.find;
import static io.meshinjector.chart.Charts.names;
import static io.meshinjector.chart.Charts.ofKind;
import static io.meshinjector.chart.Charts.render;
import static io.meshinjector.chart.Charts.texts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.TemplateCommand;
import io.meshinjector.certs.CaBundle;
import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.CertificateSet;
import io.meshinjector.certs.CertificateValidator;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.KeyedCertificate;
import io.meshinjector.certs.SubjectNames;
import io.meshinjector.certs.Validation;
import io.meshinjector.certs.rotation.RotationAction;
import io.meshinjector.certs.rotation.RotationPlanner;
import io.meshinjector.certs.rotation.RotationPolicy;
import io.meshinjector.certs.rotation.RotationState;
import io.meshinjector.engine.config.ConfigLoader;
import io.meshinjector.engine.config.MeshConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.ssl.pem.PemContent;

/** The webhook's part of the chart, per TLS mode, as Kubernetes will receive it. */
class WebhookChartTest {
  static final String SECRET = FULLNAME + "-tls";
  static final String LEASE = FULLNAME + "-certs";
  static final String LABEL_LEASE = FULLNAME + "-labels";
  static final List<String> SERVICE_NAMES =
      List.of(
          FULLNAME,
          FULLNAME + "." + NS,
          FULLNAME + "." + NS + ".svc",
          FULLNAME + "." + NS + ".svc.cluster.local");
  static final Set<String> TLS_KEYS = Set.of("ca.crt", "ca.key", "tls.crt", "tls.key");

  @TempDir Path tmp;

  @AfterEach
  void forgetClusterState() {
    FakeKubeApi.get().clear();
  }

  // ---- self-managed -------------------------------------------------------------------------

  @Test
  void selfManagedRendersAnInitialSecretAndItsCaAsTheCaBundle() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode secret = find(docs, "Secret", SECRET);
    JsonNode mwc = find(docs, "MutatingWebhookConfiguration", FULLNAME);

    assertThat(secret.path("type").asText()).isEqualTo("kubernetes.io/tls");
    assertThat(secret.at("/metadata/namespace").asText()).isEqualTo(NS);
    assertThat(fieldNames(secret.path("data"))).containsExactlyInAnyOrderElementsOf(TLS_KEYS);
    assertThat(caBundle(mwc)).isEqualTo(secret.at("/data/ca.crt").asText());
    assertThat(mwc.at("/metadata/annotations").has("cert-manager.io/inject-ca-from")).isFalse();
    assertThat(names(docs)).noneMatch(n -> n.startsWith("Certificate/") || n.startsWith("Issuer/"));
    assertThat(configTree(docs).at("/webhook/tls/mode").asText()).isEqualTo("self-managed");
  }

  @Test
  void selfManagedSetChainsToItsCaAndCoversTheServiceNames() throws Exception {
    Map<String, String> data = decodedData(find(render(t -> t), "Secret", SECRET));
    CertificateSet set =
        CertificateSet.fromPem(data.get("ca.crt"), data.get("tls.crt"), data.get("tls.key"));

    Validation validation =
        new CertificateValidator(Clock.systemUTC()).validate(set, SubjectNames.of(SERVICE_NAMES));
    assertThat(validation.isValid()).as(validation.summary()).isTrue();

    // and once more with the JDK's validator alone, the way a TLS client checks the chain
    X509Certificate ca = set.caCertificates().get(0);
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
    params.setRevocationEnabled(false);
    CertPathValidator.getInstance("PKIX")
        .validate(
            CertificateFactory.getInstance("X.509").generateCertPath(List.of(set.certificate())),
            params);
    assertThat(CertificateValidator.namesOf(set.certificate()).dnsNames())
        .containsExactlyInAnyOrderElementsOf(SERVICE_NAMES);
    assertThat(ca.getBasicConstraints()).as("ca.crt is a CA").isGreaterThanOrEqualTo(0);
  }

  @Test
  void selfManagedKeysArePkcs1AndServeCanLoadAndServeThem() throws Exception {
    Map<String, String> data = decodedData(find(render(t -> t), "Secret", SECRET));
    // Helm writes PKCS#1 RSA keys; the certs module and Spring Boot must both read that form
    assertThat(data.get("tls.key")).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    assertThat(data.get("ca.key")).startsWith("-----BEGIN RSA PRIVATE KEY-----");

    // serve's SSL bundle reads tls.crt and tls.key with Spring Boot's PEM parser
    PrivateKey key = PemContent.of(data.get("tls.key")).getPrivateKey();
    List<X509Certificate> chain = PemContent.of(data.get("tls.crt")).getCertificates();
    assertThat(CertificateValidator.keyMatches(chain.get(0), key)).isTrue();

    X509Certificate ca = PemContent.of(data.get("ca.crt")).getCertificates().get(0);
    X509Certificate served = handshake(key, chain, ca, FULLNAME + "." + NS + ".svc");
    assertThat(served).isEqualTo(chain.get(0));
  }

  @Test
  void leaderKeepsTheChartSetAndLaterRenewsFromTheChartCa() throws IOException {
    List<JsonNode> docs = render(t -> t);
    RotationState state = RotationState.fromData(decodedData(find(docs, "Secret", SECRET)));
    SubjectNames names = SubjectNames.of(SERVICE_NAMES);

    assertThat(state.signer()).as("ca.key fits ca.crt").isNotNull();
    RotationPolicy policy = leadersPolicy(docs);
    assertThat(policy)
        .as("the chart's defaults are the built-in ones")
        .isEqualTo(RotationPolicy.defaults());
    RotationPlanner today = new RotationPlanner(Clock.systemUTC(), policy, names);
    assertThat(today.plan(state)).isInstanceOf(RotationAction.Keep.class);
    // the leader compares caBundles as text: the chart's must be exactly what it would patch in,
    // or the first pass rewrites an equivalent bundle
    assertThat(caBundle(find(docs, "MutatingWebhookConfiguration", FULLNAME)))
        .isEqualTo(CaBundle.base64(state.caBundle()));

    // the chart's serving cert lives 90 days and is renewed at 2/3 of that
    Clock before = Clock.offset(Clock.systemUTC(), Duration.ofDays(59));
    assertThat(new RotationPlanner(before, policy, names).plan(state))
        .isInstanceOf(RotationAction.Keep.class);
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofDays(61));
    RotationPlanner planner = new RotationPlanner(later, policy, names);
    RotationAction action = planner.plan(state);
    assertThat(action).isInstanceOf(RotationAction.RenewServing.class);
    assertThat(action.reason()).contains("passed its renewal time");
    RotationState renewed = planner.apply(action, state);
    assertThat(renewed.caBundle()).isEqualTo(state.caBundle());
    Validation validation = new CertificateValidator(later).validate(renewed.set(), names);
    assertThat(validation.isValid()).as(validation.summary()).isTrue();
  }

  @Test
  void selfManagedLifetimesApplyToTheInstallSetAndTheLeader() throws IOException {
    List<JsonNode> docs =
        render(
            t ->
                t.set("tls.selfManaged.caValidityDays", 400)
                    .set("tls.selfManaged.certValidityDays", 30));
    RotationState state = RotationState.fromData(decodedData(find(docs, "Secret", SECRET)));

    assertThat(lifetime(state.signer().certificate())).isEqualTo(Duration.ofDays(400));
    assertThat(lifetime(state.set().certificate())).isEqualTo(Duration.ofDays(30));
    JsonNode tls = configTree(docs).at("/webhook/tls");
    assertThat(tls.path("caValidity").asText()).isEqualTo("400d");
    assertThat(tls.path("servingValidity").asText()).isEqualTo("30d");
    RotationPolicy policy = leadersPolicy(docs);
    assertThat(policy.caValidity()).isEqualTo(Duration.ofDays(400));
    assertThat(policy.servingValidity()).isEqualTo(Duration.ofDays(30));
  }

  @Test
  void lifetimesInMinutesReachTheLeaderAndTheInstallSetLastsWholeDays() throws IOException {
    List<JsonNode> docs =
        render(
            t ->
                t.set("tls.selfManaged.caValidityMinutes", 120)
                    .set("tls.selfManaged.certValidityMinutes", 4)
                    .set("tls.selfManaged.renewBeforeMinutes", 2)
                    .set("tls.selfManaged.overlapMinutes", 1));
    RotationState state = RotationState.fromData(decodedData(find(docs, "Secret", SECRET)));
    // Helm's genCA and genSignedCert count whole days: the first set lasts one, rounded up
    assertThat(lifetime(state.signer().certificate())).isEqualTo(Duration.ofDays(1));
    assertThat(lifetime(state.set().certificate())).isEqualTo(Duration.ofDays(1));
    JsonNode tls = configTree(docs).at("/webhook/tls");
    assertThat(tls.path("servingValidity").asText()).isEqualTo("4m");
    assertThat(tls.path("renewBefore").asText()).isEqualTo("2m");
    RotationPolicy policy = leadersPolicy(docs);
    assertThat(policy.caValidity()).isEqualTo(Duration.ofMinutes(120));
    assertThat(policy.servingValidity()).isEqualTo(Duration.ofMinutes(4));
    assertThat(policy.overlap()).isEqualTo(Duration.ofMinutes(1));
    assertThat(policy.renewFraction()).isEqualTo(0.5);
    // the leader replaces that day-long first cert as it would a 4-minute one issued with it, 2
    // minutes before that one's end: Helm does not backdate, so its issue is its notBefore (read
    // within the backdate, as a leader reads it right after an install or an upgrade), not 5
    // minutes later as for the leader's own backdated certificates
    X509Certificate first = state.set().certificate();
    java.time.Instant readAt = first.getNotBefore().toInstant().plusSeconds(30);
    assertThat(policy.renewAt(first, policy.servingValidity(), readAt))
        .isEqualTo(first.getNotBefore().toInstant().plus(Duration.ofMinutes(2)));

    assertThatThrownBy(
            () ->
                render(
                    t ->
                        t.set("tls.selfManaged.certValidityMinutes", 4)
                            .set("tls.selfManaged.renewBeforeMinutes", 4)))
        .hasMessageContaining("tls.selfManaged.renewBeforeMinutes (4) must be 0");
    assertThatThrownBy(
            () ->
                render(
                    t ->
                        t.set("tls.selfManaged.caValidityMinutes", 3)
                            .set("tls.selfManaged.certValidityMinutes", 4)))
        .hasMessageContaining("must not be longer than the CA's (3 minutes)");
  }

  @Test
  void aServingCertLongerThanItsCaIsRefused() throws IOException {
    assertThatThrownBy(
            () ->
                render(
                    t ->
                        t.set("tls.selfManaged.caValidityDays", 365)
                            .set("tls.selfManaged.certValidityDays", 400)))
        .hasMessageContaining(
            "tls.selfManaged.certValidityDays (400) must not be greater than caValidityDays"
                + " (365)");
    // values.schema.json refuses it before the template's own check
    assertThatThrownBy(() -> render(t -> t.set("tls.selfManaged.certValidityDays", 0)))
        .hasMessageContaining("at '/tls/selfManaged/certValidityDays'");
    // equal lifetimes are allowed: the serving cert then ends with its CA
    assertThat(
            render(
                t ->
                    t.set("tls.selfManaged.caValidityDays", 365)
                        .set("tls.selfManaged.certValidityDays", 365)))
        .isNotEmpty();
  }

  @Test
  void theTrustAnchorsAreRequiredAndReachTheWebhooksConfig() throws IOException {
    assertThatThrownBy(() -> Charts.renderWithoutTrustAnchors(Charts.CHART, t -> t))
        .hasMessageContaining("config.proxy.trustAnchorsPEM is required")
        .hasMessageContaining("--set-file config.proxy.trustAnchorsPEM=");
    assertThatThrownBy(
            () -> render(t -> t.set("config.proxy.trustAnchorsPEM", "not a certificate")))
        .hasMessageContaining("config.proxy.trustAnchorsPEM holds no PEM certificate");

    String anchors =
        Charts.YAML
            .readTree(Charts.TRUST_ANCHORS.toFile())
            .at("/config/proxy/trustAnchorsPEM")
            .asText();
    MeshConfig config =
        ConfigLoader.fromYaml(Charts.YAML.writeValueAsString(configTree(render(t -> t))));
    assertThat(config.section("proxy").text("trustAnchorsPEM")).isEqualTo(anchors);
  }

  @Test
  void theLeadersLifetimesCannotBeSetInConfig() {
    assertThatThrownBy(() -> render(t -> t.set("config.webhook.tls.servingValidity", "10d")))
        .hasMessageContaining("config.webhook.tls.servingValidity is set by the chart")
        .hasMessageContaining("tls.selfManaged");
    assertThatThrownBy(() -> render(t -> t.set("config.webhook.tls.renewBefore", "1m")))
        .hasMessageContaining("config.webhook.tls.renewBefore is set by the chart");
  }

  /** The RotationPolicy the leader builds from the rendered config (TlsSettings.rotationPolicy). */
  private static RotationPolicy leadersPolicy(List<JsonNode> docs) throws IOException {
    JsonNode tls =
        ConfigLoader.fromYaml(Charts.YAML.writeValueAsString(configTree(docs)))
            .tree()
            .at("/webhook/tls");
    RotationPolicy defaults = RotationPolicy.defaults();
    Duration serving =
        io.meshinjector.engine.config.ConfigSection.parseDuration(
            tls.path("servingValidity").asText());
    String renewBefore = tls.path("renewBefore").asText();
    // as TlsSettings: an empty renewBefore is a third of the lifetime
    double fraction =
        renewBefore.isEmpty()
            ? RotationPolicy.TWO_THIRDS
            : 1.0
                - (double)
                        io.meshinjector.engine.config.ConfigSection.parseDuration(renewBefore)
                            .toMillis()
                    / serving.toMillis();
    return new RotationPolicy(
        io.meshinjector.engine.config.ConfigSection.parseDuration(tls.path("caValidity").asText()),
        serving,
        fraction,
        io.meshinjector.engine.config.ConfigSection.parseDuration(tls.path("overlap").asText()),
        defaults.keyType());
  }

  private static Duration lifetime(X509Certificate certificate) {
    return Duration.between(
        certificate.getNotBefore().toInstant(), certificate.getNotAfter().toInstant());
  }

  @Test
  void upgradeKeepsTheSecretTheLeaderWrote() throws IOException {
    // a rollover in progress: two CAs in the bundle, the newer one signing
    CertificateIssuer issuer = new CertificateIssuer(Clock.systemUTC());
    CertificateAuthority oldCa = issuer.newAuthority(Duration.ofDays(1000), KeyType.defaultType());
    CertificateAuthority newCa = issuer.newAuthority(Duration.ofDays(1000), KeyType.defaultType());
    KeyedCertificate serving =
        issuer.issueServing(
            newCa, SubjectNames.of(SERVICE_NAMES), Duration.ofDays(90), KeyType.defaultType());
    RotationState leaders =
        new RotationState(
            new CertificateSet(
                List.of(oldCa.certificate(), newCa.certificate()),
                serving.certificate(),
                serving.privateKey()),
            newCa);
    Map<String, String> base64 = new LinkedHashMap<>();
    leaders.toData().forEach((k, v) -> base64.put(k, b64(v)));
    FakeKubeApi.get().putSecret(NS, SECRET, base64);

    List<JsonNode> docs = render(t -> t);

    JsonNode data = find(docs, "Secret", SECRET).path("data");
    assertThat(fieldNames(data)).containsExactlyInAnyOrderElementsOf(base64.keySet());
    base64.forEach((k, v) -> assertThat(data.path(k).asText()).as(k).isEqualTo(v));
    String bundle = caBundle(find(docs, "MutatingWebhookConfiguration", FULLNAME));
    assertThat(bundle).isEqualTo(base64.get("ca.crt"));
    assertThat(CaBundle.fromBase64(bundle)).hasSize(2);
  }

  @Test
  void aSecretWithoutAFullSetIsReplacedByANewOne() throws IOException {
    FakeKubeApi.get().putSecret(NS, SECRET, Map.of("tls.crt", b64("not a certificate")));

    JsonNode secret = find(render(t -> t), "Secret", SECRET);

    Map<String, String> data = decodedData(secret);
    assertThat(data.keySet()).containsExactlyInAnyOrderElementsOf(TLS_KEYS);
    CertificateSet set =
        CertificateSet.fromPem(data.get("ca.crt"), data.get("tls.crt"), data.get("tls.key"));
    assertThat(
            new CertificateValidator(Clock.systemUTC())
                .validate(set, SubjectNames.of(SERVICE_NAMES))
                .isValid())
        .isTrue();
  }

  // ---- cert-manager -------------------------------------------------------------------------

  @Test
  void certManagerWithItsOwnCaChainAndTheInjectorAnnotation() throws IOException {
    List<JsonNode> docs = render(t -> t.set("tls.mode", "cert-manager"));
    JsonNode mwc = find(docs, "MutatingWebhookConfiguration", FULLNAME);
    JsonNode serving = find(docs, "Certificate", FULLNAME + "-tls");
    JsonNode ca = find(docs, "Certificate", FULLNAME + "-ca");

    assertThat(names(docs)).noneMatch(n -> n.startsWith("Secret/"));
    assertThat(mwc.at("/metadata/annotations/cert-manager.io~1inject-ca-from").asText())
        .isEqualTo(NS + "/" + FULLNAME + "-tls");
    assertThat(mwc.at("/webhooks/0/clientConfig").has("caBundle")).isFalse();
    assertThat(serving.at("/spec/secretName").asText()).isEqualTo(SECRET);
    assertThat(texts(serving.at("/spec/dnsNames"))).containsExactlyElementsOf(SERVICE_NAMES);
    assertThat(serving.at("/spec/privateKey/encoding").asText()).isEqualTo("PKCS8");
    assertThat(serving.at("/spec/issuerRef/kind").asText()).isEqualTo("Issuer");
    assertThat(serving.at("/spec/issuerRef/name").asText()).isEqualTo(FULLNAME + "-ca");
    assertThat(ca.at("/spec/isCA").asBoolean()).isTrue();
    assertThat(ca.at("/spec/issuerRef/name").asText()).isEqualTo(FULLNAME + "-selfsigned");
    assertThat(find(docs, "Issuer", FULLNAME + "-selfsigned").at("/spec").has("selfSigned"))
        .isTrue();
    assertThat(find(docs, "Issuer", FULLNAME + "-ca").at("/spec/ca/secretName").asText())
        .isEqualTo(ca.at("/spec/secretName").asText());
    assertThat(tlsVolumeSecret(docs)).isEqualTo(SECRET);
    assertThat(configTree(docs).at("/webhook/tls/mode").asText()).isEqualTo("cert-manager");
  }

  @Test
  void certManagerWithAGivenIssuerRendersOnlyTheServingCertificate() throws IOException {
    List<JsonNode> docs =
        render(
            t ->
                t.set("tls.mode", "cert-manager")
                    .set("tls.certManager.issuerRef.kind", "ClusterIssuer")
                    .set("tls.certManager.issuerRef.name", "corp-ca"));

    assertThat(ofKind(docs, "Issuer")).isEmpty();
    assertThat(names(ofKind(docs, "Certificate"))).containsExactly("Certificate/" + SECRET);
    JsonNode ref = find(docs, "Certificate", SECRET).at("/spec/issuerRef");
    assertThat(ref.path("kind").asText()).isEqualTo("ClusterIssuer");
    assertThat(ref.path("name").asText()).isEqualTo("corp-ca");
    assertThat(ref.path("group").asText()).isEqualTo("cert-manager.io");
  }

  // ---- secret -------------------------------------------------------------------------------

  @Test
  void secretModeMountsTheNamedSecretAndTakesTheGivenCaBundle() throws IOException {
    X509Certificate ca =
        new CertificateIssuer(Clock.systemUTC())
            .newAuthority(Duration.ofDays(30), KeyType.defaultType())
            .certificate();
    String pem = CaBundle.pem(List.of(ca));
    UnaryOperator<TemplateCommand> secretMode =
        t -> t.set("tls.mode", "secret").set("tls.secretName", "corp-webhook-tls");

    Path pemValues = values("tls:\n  caBundle: |\n" + indent(pem, 4));
    List<JsonNode> fromPem = render(t -> secretMode.apply(t).withValuesFile(pemValues));
    List<JsonNode> fromBase64 = render(t -> secretMode.apply(t).set("tls.caBundle", b64(pem)));

    for (List<JsonNode> docs : List.of(fromPem, fromBase64)) {
      assertThat(names(docs))
          .noneMatch(
              n ->
                  n.startsWith("Secret/")
                      || n.startsWith("Certificate/")
                      || n.startsWith("Issuer/"));
      JsonNode mwc = find(docs, "MutatingWebhookConfiguration", FULLNAME);
      assertThat(CaBundle.fromBase64(caBundle(mwc))).containsExactly(ca);
      // no cert-manager injector: the failure policy for the tags is the only annotation
      assertThat(fieldNames(mwc.at("/metadata/annotations")))
          .containsExactly("mesh-injector.io/failure-policy");
      assertThat(tlsVolumeSecret(docs)).isEqualTo("corp-webhook-tls");
      JsonNode tls = configTree(docs).at("/webhook/tls");
      assertThat(tls.path("mode").asText()).isEqualTo("secret");
      assertThat(tls.path("secretName").asText()).isEqualTo("corp-webhook-tls");
    }
  }

  @Test
  void secretModeNeedsTheSecretNameAndTheCaBundle() {
    assertThatThrownBy(() -> render(t -> t.set("tls.mode", "secret").set("tls.caBundle", "eA==")))
        .hasMessageContaining("tls.mode=secret needs tls.secretName");
    assertThatThrownBy(() -> render(t -> t.set("tls.mode", "secret").set("tls.secretName", "x")))
        .hasMessageContaining("tls.mode=secret needs tls.caBundle");
    assertThatThrownBy(() -> render(t -> t.set("tls.mode", "vault")))
        // values.schema.json refuses it before the template's own check
        .hasMessageContaining(
            "at '/tls/mode': value must be one of 'self-managed', 'cert-manager', 'secret'");
  }

  // ---- the Deployment -----------------------------------------------------------------------

  @Test
  void deploymentRunsRestrictedAndProbesOverHttps() throws IOException {
    JsonNode deployment = find(render(t -> t), "Deployment", FULLNAME);
    JsonNode pod = deployment.at("/spec/template/spec");
    JsonNode container = pod.path("containers").get(0);

    assertThat(pod.path("containers")).hasSize(1);
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.at("/securityContext/runAsUser").asInt()).isPositive();
    assertThat(pod.at("/securityContext/seccompProfile/type").asText()).isEqualTo("RuntimeDefault");
    assertThat(pod.path("hostNetwork").asBoolean(false)).isFalse();
    assertThat(pod.path("hostPID").asBoolean(false)).isFalse();
    assertThat(pod.path("volumes").findValues("hostPath")).isEmpty();
    JsonNode sc = container.path("securityContext");
    assertThat(sc.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(sc.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(sc.path("privileged").asBoolean(false)).isFalse();
    assertThat(texts(sc.at("/capabilities/drop"))).containsExactly("ALL");
    assertThat(sc.at("/capabilities").has("add")).isFalse();
    assertThat(container.at("/resources/requests/memory").asText()).isNotEmpty();
    assertThat(container.at("/resources/limits/memory").asText()).isNotEmpty();

    Map<String, Integer> ports = new LinkedHashMap<>();
    container
        .path("ports")
        .forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
    assertThat(ports).containsEntry("https", 8443).containsEntry("metrics", 9090);
    for (String[] probe :
        new String[][] {
          {"startupProbe", "/healthz"}, {"readinessProbe", "/readyz"}, {"livenessProbe", "/healthz"}
        }) {
      JsonNode get = container.path(probe[0]).path("httpGet");
      assertThat(get.path("path").asText()).as(probe[0]).isEqualTo(probe[1]);
      assertThat(get.path("scheme").asText()).as(probe[0]).isEqualTo("HTTPS");
      assertThat(get.path("port").asText()).as(probe[0]).isEqualTo("https");
    }
  }

  @Test
  void deploymentServesTheRenderedConfigAndTheTlsSecret() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode pod = find(docs, "Deployment", FULLNAME).at("/spec/template/spec");
    JsonNode container = pod.path("containers").get(0);

    List<String> command = new ArrayList<>(texts(container.path("command")));
    command.addAll(texts(container.path("args")));
    assertThat(command)
        .containsExactly(
            "/app/bin/mesh-injector",
            "serve",
            "--config",
            "/etc/mesh-injector/config.yaml",
            "--tls-dir",
            "/var/run/mesh-injector/tls");
    JsonNode podNamespace = envVar(container, "POD_NAMESPACE");
    assertThat(podNamespace.at("/valueFrom/fieldRef/fieldPath").asText())
        .isEqualTo("metadata.namespace");

    Map<String, JsonNode> volumes = byName(pod.path("volumes"));
    Map<String, JsonNode> mounts = byName(container.path("volumeMounts"));
    assertThat(mounts.get("config").path("mountPath").asText()).isEqualTo("/etc/mesh-injector");
    String configMap = volumes.get("config").at("/configMap/name").asText();
    assertThat(find(docs, "ConfigMap", configMap).at("/data").has("config.yaml")).isTrue();
    assertThat(mounts.get("tls").path("mountPath").asText())
        .isEqualTo("/var/run/mesh-injector/tls");
    assertThat(mounts.get("tls").path("readOnly").asBoolean()).isTrue();
    JsonNode tls = volumes.get("tls").path("secret");
    assertThat(tls.path("secretName").asText()).isEqualTo(SECRET);
    assertThat(tls.path("items").findValuesAsText("key")).containsExactly("tls.crt", "tls.key");
    assertThat(mounts.get("tmp").path("mountPath").asText()).isEqualTo("/tmp");
    assertThat(volumes.get("tmp").has("emptyDir")).isTrue();
  }

  @Test
  void aConfigChangeRollsThePodsAndMovesThePorts() throws IOException {
    JsonNode before = find(render(t -> t), "Deployment", FULLNAME);
    List<JsonNode> docs =
        render(t -> t.set("config.webhook.port", 9443).set("config.webhook.metricsPort", 9091));
    JsonNode after = find(docs, "Deployment", FULLNAME);

    assertThat(after.at("/spec/template/metadata/annotations/checksum~1config").asText())
        .isNotEqualTo(before.at("/spec/template/metadata/annotations/checksum~1config").asText());
    JsonNode ports = after.at("/spec/template/spec/containers/0/ports");
    assertThat(ports.findValuesAsText("containerPort")).containsExactly("9443", "9091");
    assertThat(find(docs, "Service", FULLNAME + "-metrics").at("/spec/ports/0/port").asInt())
        .isEqualTo(9091);
  }

  @Test
  void replicasSpreadOverNodesWithAnOptionalPriorityClass() throws IOException {
    JsonNode deployment =
        find(
            render(t -> t.set("priorityClassName", "system-cluster-critical")),
            "Deployment",
            FULLNAME);
    JsonNode pod = deployment.at("/spec/template/spec");
    JsonNode podLabels = deployment.at("/spec/template/metadata/labels");

    assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
    assertThat(deployment.at("/spec/strategy/rollingUpdate/maxUnavailable").asInt()).isZero();
    assertThat(pod.path("priorityClassName").asText()).isEqualTo("system-cluster-critical");
    assertThat(pod.path("topologySpreadConstraints").findValuesAsText("topologyKey"))
        .contains("kubernetes.io/hostname");
    for (JsonNode spread : pod.path("topologySpreadConstraints")) {
      assertThat(selects(spread.at("/labelSelector/matchLabels"), podLabels))
          .as("spread %s counts the webhook's own pods", spread.path("topologyKey").asText())
          .isTrue();
    }
    assertThat(
            find(render(t -> t), "Deployment", FULLNAME)
                .at("/spec/template/spec")
                .has("priorityClassName"))
        .isFalse();
  }

  @Test
  void podDisruptionBudgetKeepsOneReplicaAndIsDroppedForASingleOne() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode pdb = find(docs, "PodDisruptionBudget", FULLNAME);

    assertThat(pdb.at("/spec/minAvailable").asInt()).isEqualTo(1);
    assertThat(
            selects(
                pdb.at("/spec/selector/matchLabels"),
                find(docs, "Deployment", FULLNAME).at("/spec/template/metadata/labels")))
        .isTrue();
    // minAvailable 1 of 1 would block every node drain
    assertThat(ofKind(render(t -> t.set("replicaCount", 1)), "PodDisruptionBudget")).isEmpty();
  }

  // ---- admission webhook and Services -------------------------------------------------------

  @Test
  void webhookConfigurationDefaults() throws IOException {
    List<JsonNode> docs = render(t -> t);
    JsonNode mwc = find(docs, "MutatingWebhookConfiguration", FULLNAME);
    JsonNode service = find(docs, "Service", FULLNAME);

    // the revision default serves the tag default itself while the cluster has no tag object:
    // the fail-closed entry for the namespaces that opted in, the two that route a pod's own rev,
    // and the catch-all
    assertThat(byName(mwc.path("webhooks")).keySet())
        .containsExactly(
            "inject.mesh-injector.io",
            "inject-rev.mesh-injector.io",
            "rev-elsewhere.mesh-injector.io",
            "inject-unlabelled.mesh-injector.io");
    JsonNode w = byName(mwc.path("webhooks")).get("inject.mesh-injector.io");
    assertThat(texts(w.path("admissionReviewVersions"))).containsExactly("v1", "v1beta1");
    assertThat(w.path("sideEffects").asText()).isEqualTo("None");
    assertThat(w.path("failurePolicy").asText()).isEqualTo("Fail");
    assertThat(w.path("timeoutSeconds").asInt()).isEqualTo(10);
    assertThat(w.path("reinvocationPolicy").asText()).isEqualTo("IfNeeded");
    assertThat(w.path("rules")).hasSize(1);
    JsonNode rule = w.at("/rules/0");
    assertThat(texts(rule.path("operations"))).containsExactly("CREATE");
    assertThat(texts(rule.path("apiGroups"))).containsExactly("");
    assertThat(texts(rule.path("apiVersions"))).containsExactly("v1");
    assertThat(texts(rule.path("resources"))).containsExactly("pods");
    assertThat(w.has("objectSelector")).isFalse();
    // one call per pod: a pod injected with nothing added since (a reinvocation) is not sent;
    // the tag's own condition (the pod names no other revision) comes first
    assertThat(w.path("matchConditions").findValuesAsText("name"))
        .containsExactly("rev-is-this", "injection-incomplete");

    JsonNode ref = w.at("/clientConfig/service");
    assertThat(ref.path("name").asText()).isEqualTo(service.at("/metadata/name").asText());
    assertThat(ref.path("namespace").asText()).isEqualTo(NS);
    assertThat(ref.path("path").asText()).isEqualTo("/mutate");
    assertThat(ref.path("port").asInt()).isEqualTo(443);
    assertThat(service.at("/spec/ports/0/port").asInt()).isEqualTo(443);
    assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo("https");
    assertThat(
            selects(
                service.at("/spec/selector"),
                find(docs, "Deployment", FULLNAME).at("/spec/template/metadata/labels")))
        .isTrue();

    assertThat(excludedNamespaces(w)).contains(NS, "kube-system");

    // the catch-all differs in its failure policy, the injection label's operator, its path (the
    // unrouted one) and the tag's condition
    JsonNode other = byName(mwc.path("webhooks")).get("inject-unlabelled.mesh-injector.io");
    assertThat(other.path("failurePolicy").asText()).isEqualTo("Ignore");
    assertThat(other.at("/clientConfig/service/path").asText()).isEqualTo("/mutate/unrouted");
    for (String field :
        List.of(
            "admissionReviewVersions",
            "sideEffects",
            "timeoutSeconds",
            "reinvocationPolicy",
            "rules",
            "matchPolicy")) {
      assertThat(other.path(field)).as(field).isEqualTo(w.path(field));
    }
    assertThat(other.at("/clientConfig/caBundle")).isEqualTo(w.at("/clientConfig/caBundle"));
    assertThat(other.at("/matchConditions/0")).isEqualTo(w.at("/matchConditions/1"));
    assertThat(excludedNamespaces(other)).isEqualTo(excludedNamespaces(w));
  }

  /**
   * A pod that names no revision meets exactly one entry: in the labelled namespaces (the leader
   * mirrors {@code inject=enabled}) the tag default's fail-closed one, in every other namespace the
   * release's fail-open one. Evaluated as the API server evaluates label selectors and match
   * conditions, over namespaces with and without the label. RevisionRoutingTest does the same for
   * several releases and tags.
   */
  @Test
  void onlyNamespacesThatOptedInFailClosed() throws IOException {
    JsonNode mwc = find(render(t -> t), "MutatingWebhookConfiguration", FULLNAME);
    List<JsonNode> webhooks = new ArrayList<>();
    mwc.path("webhooks").forEach(webhooks::add);
    Map<String, Object> pod = pod(List.of("app"), List.of(), null);
    Map<String, Map<String, String>> namespaces =
        Map.of(
            "opted-in",
            Map.of("kubernetes.io/metadata.name", "shop", "mesh-injector.io/injection", "enabled"),
            "plain",
            Map.of("kubernetes.io/metadata.name", "plain"),
            "labelled-otherwise",
            Map.of("kubernetes.io/metadata.name", "odd", "mesh-injector.io/injection", "disabled"),
            "release namespace",
            Map.of("kubernetes.io/metadata.name", NS, "mesh-injector.io/injection", "enabled"));
    Map<String, List<String>> met = new java.util.TreeMap<>();
    namespaces.forEach(
        (name, labels) -> {
          List<String> policies = new ArrayList<>();
          for (JsonNode webhook : webhooks) {
            if (WebhookRoutes.calls(webhook, labels, pod)) {
              policies.add(webhook.path("failurePolicy").asText());
            }
          }
          met.put(name, policies);
        });
    assertThat(met)
        .containsEntry("opted-in", List.of("Fail"))
        .containsEntry("plain", List.of("Ignore"))
        .containsEntry("labelled-otherwise", List.of("Ignore"))
        .containsEntry("release namespace", List.of());
  }

  /**
   * The condition as the API server evaluates it (CEL, with cel-java and the strings extension the
   * API server has): a pod without the proxy is sent; one this webhook injected is sent again only
   * when a container the injection's annotation does not list was added after it; a proxy without
   * the annotation is another injector's, and not sent. On servers older than 1.28, which do not
   * serve matchConditions, there is none.
   */
  @Test
  void onlyAPodWithSomethingLeftToInjectIsSent() throws Exception {
    for (String[] mesh : new String[][] {{"linkerd", "linkerd-proxy"}, {"istio", "istio-proxy"}}) {
      JsonNode w =
          byName(
                  find(
                          render(t -> t.set("config.mesh", mesh[0])),
                          "MutatingWebhookConfiguration",
                          FULLNAME)
                      .path("webhooks"))
              .get("inject-unlabelled.mesh-injector.io");
      String expression = w.at("/matchConditions/0/expression").asText();
      String proxy = mesh[1];
      String listed = "init," + proxy + ",app";
      assertThat(MatchConditions.holds(expression, pod(List.of("app"), List.of(), null))).isTrue();
      assertThat(MatchConditions.holds(expression, pod(List.of("app"), null, null))).isTrue();
      // injected, as a container or a native sidecar, nothing added: not sent again
      assertThat(
              MatchConditions.holds(
                  expression, pod(List.of(proxy, "app"), List.of("init"), listed)))
          .isFalse();
      assertThat(
              MatchConditions.holds(
                  expression, pod(List.of("app"), List.of("init", proxy), listed)))
          .isFalse();
      // a later webhook added a container, or an init container: sent again
      assertThat(
              MatchConditions.holds(
                  expression, pod(List.of("added", proxy, "app"), List.of("init"), listed)))
          .isTrue();
      assertThat(
              MatchConditions.holds(
                  expression, pod(List.of("app"), List.of("added", "init", proxy), listed)))
          .isTrue();
      // a name that only contains a listed one is not listed
      assertThat(
              MatchConditions.holds(
                  expression, pod(List.of("app2", "app"), List.of("init", proxy), listed)))
          .isTrue();
      // another injector's proxy, without our annotation: left alone
      assertThat(MatchConditions.holds(expression, pod(List.of(proxy, "app"), List.of(), null)))
          .isFalse();
    }
    JsonNode old =
        find(render(t -> t.withKubeVersion("1.27.0")), "MutatingWebhookConfiguration", FULLNAME)
            .at("/webhooks/0");
    assertThat(old.has("matchConditions")).isFalse();
  }

  private static Map<String, Object> pod(
      List<String> containers, List<String> initContainers, String injectedContainers) {
    Map<String, Object> spec = new java.util.LinkedHashMap<>();
    spec.put("containers", containers.stream().map(n -> Map.of("name", n)).toList());
    if (initContainers != null) {
      spec.put("initContainers", initContainers.stream().map(n -> Map.of("name", n)).toList());
    }
    Map<String, Object> metadata = new java.util.LinkedHashMap<>();
    metadata.put("name", "web");
    if (injectedContainers != null) {
      metadata.put(
          "annotations",
          Map.of("mesh-injector.io/injected-containers", injectedContainers, "other", "x"));
    }
    return Map.of("metadata", metadata, "spec", spec);
  }

  @Test
  void aUrlReplacesTheServiceInEveryEntry() throws IOException {
    JsonNode mwc =
        find(
            render(t -> t.set("admissionWebhook.url", "https://10.0.0.5:8443/mutate")),
            "MutatingWebhookConfiguration",
            FULLNAME);
    // the catch-all calls the unrouted path; the tag default's entries, written from it, the url
    List<JsonNode> webhooks = new ArrayList<>();
    mwc.path("webhooks").forEach(webhooks::add);
    Map<String, String> urls = new LinkedHashMap<>();
    for (JsonNode w : webhooks) {
      urls.put(w.path("name").asText(), w.at("/clientConfig/url").asText());
      assertThat(w.at("/clientConfig").has("service")).isFalse();
      assertThat(w.at("/clientConfig/caBundle").asText()).isNotBlank();
    }
    assertThat(urls)
        .containsExactly(
            Map.entry("inject.mesh-injector.io", "https://10.0.0.5:8443/mutate"),
            Map.entry("inject-rev.mesh-injector.io", "https://10.0.0.5:8443/mutate"),
            Map.entry("rev-elsewhere.mesh-injector.io", "https://10.0.0.5:8443/mutate/unrouted"),
            Map.entry(
                "inject-unlabelled.mesh-injector.io", "https://10.0.0.5:8443/mutate/unrouted"));
    assertThatThrownBy(() -> render(t -> t.set("admissionWebhook.url", "http://plain:80/mutate")))
        .hasMessageContaining("url");
  }

  @Test
  void theCniPodsRoleIsCreatedOnlyWhereItsNamespaceCanHoldIt() throws IOException {
    // auto: Helm's lookup finds no linkerd-cni namespace in this cluster, so no Role that would
    // fail the install; always and never say it outright
    assertThat(names(render(t -> t))).doesNotContain("Role/" + FULLNAME + "-cni-pods");
    assertThat(names(render(t -> t.set("cniPodsRole", "never"))))
        .doesNotContain("Role/" + FULLNAME + "-cni-pods", "RoleBinding/" + FULLNAME + "-cni-pods");
    List<JsonNode> always = render(t -> t.set("cniPodsRole", "always"));
    assertThat(find(always, "Role", FULLNAME + "-cni-pods").at("/metadata/namespace").asText())
        .isEqualTo("linkerd-cni");
    assertThat(
            find(always, "RoleBinding", FULLNAME + "-cni-pods").at("/metadata/namespace").asText())
        .isEqualTo("linkerd-cni");
    assertThatThrownBy(() -> render(t -> t.set("cniPodsRole", "sometimes")))
        .hasMessageContaining("cniPodsRole");
  }

  @Test
  void theLeaderMayLabelNamespacesForTheFailClosedEntry() throws IOException {
    for (List<JsonNode> docs :
        List.of(render(t -> t), render(t -> t.set("config.policy.publishLabels", false)))) {
      assertThat(verbs(find(docs, "ClusterRole", FULLNAME), "namespaces"))
          .contains("get", "list", "watch", "patch");
      assertNamedExceptCreate(
          rulesFor(find(docs, "Role", FULLNAME), "leases"),
          List.of(LEASE, LABEL_LEASE),
          Set.of("get", "update", "patch"));
    }
  }

  @Test
  void webhookConfigurationOptions() throws IOException {
    JsonNode mwc =
        find(
            render(
                t ->
                    t.set("admissionWebhook.failurePolicy", "Ignore")
                        .set("admissionWebhook.timeoutSeconds", 5)
                        .set("admissionWebhook.excludedNamespaces[0]", "kube-public")
                        .set("admissionWebhook.objectSelector.matchLabels.team", "shop")
                        .set("admissionWebhook.matchConditions[0].name", "not-host-network")
                        .set(
                            "admissionWebhook.matchConditions[0].expression",
                            "!has(object.spec.hostNetwork) || !object.spec.hostNetwork")),
            "MutatingWebhookConfiguration",
            FULLNAME);
    JsonNode w = byName(mwc.path("webhooks")).get("inject-unlabelled.mesh-injector.io");

    // the failure policy of the namespaces that opted in: on the route entries, and on the tags'
    // through the annotation
    assertThat(mwc.at("/metadata/annotations/mesh-injector.io~1failure-policy").asText())
        .isEqualTo("Ignore");
    assertThat(
            byName(mwc.path("webhooks"))
                .get("inject.mesh-injector.io")
                .path("failurePolicy")
                .asText())
        .isEqualTo("Ignore");
    assertThat(w.path("failurePolicy").asText()).isEqualTo("Ignore");
    assertThat(w.path("timeoutSeconds").asInt()).isEqualTo(5);
    // the list replaces the default one; the release namespace stays excluded whatever it says
    assertThat(excludedNamespaces(w)).containsExactly(NS, "kube-public");
    assertThat(w.at("/objectSelector/matchLabels/team").asText()).isEqualTo("shop");
    // the chart's own condition first, then the user's
    assertThat(w.at("/matchConditions/0/name").asText()).isEqualTo("injection-incomplete");
    assertThat(w.at("/matchConditions/1/name").asText()).isEqualTo("not-host-network");
    assertThat(w.at("/matchConditions/1/expression").asText())
        .isEqualTo("!has(object.spec.hostNetwork) || !object.spec.hostNetwork");
  }

  @Test
  void metricsServiceByDefaultAndServiceMonitorOnRequest() throws IOException {
    List<JsonNode> docs = render(t -> t.set("metrics.serviceMonitor.enabled", true));
    JsonNode metrics = find(docs, "Service", FULLNAME + "-metrics");
    JsonNode monitor = find(docs, "ServiceMonitor", FULLNAME);

    assertThat(metrics.at("/spec/ports/0/port").asInt()).isEqualTo(9090);
    assertThat(metrics.at("/spec/ports/0/targetPort").asText()).isEqualTo("metrics");
    assertThat(selects(monitor.at("/spec/selector/matchLabels"), metrics.at("/metadata/labels")))
        .isTrue();
    assertThat(
            selects(
                monitor.at("/spec/selector/matchLabels"),
                find(docs, "Service", FULLNAME).at("/metadata/labels")))
        .as("only the metrics Service, never the admission one")
        .isFalse();
    assertThat(monitor.at("/spec/endpoints/0/port").asText()).isEqualTo("metrics");
    assertThat(monitor.at("/spec/endpoints/0/path").asText()).isEqualTo("/metrics");
    assertThat(ofKind(render(t -> t), "ServiceMonitor")).isEmpty();
    assertThatThrownBy(
            () ->
                render(
                    t ->
                        t.set("metrics.serviceMonitor.enabled", true)
                            .set("metrics.service.enabled", false)))
        .hasMessageContaining("metrics.serviceMonitor.enabled needs metrics.service.enabled");
  }

  // ---- RBAC ---------------------------------------------------------------------------------

  @Test
  void rbacIsNamedAndScopedToWhatTheWebhookUses() throws IOException {
    List<JsonNode> docs = render(t -> t.set("cniPodsRole", "always"));
    JsonNode clusterRole = find(docs, "ClusterRole", FULLNAME);
    JsonNode role = find(docs, "Role", FULLNAME);

    List<JsonNode> all = new ArrayList<>();
    webhookRoles(docs).forEach(r -> r.path("rules").forEach(all::add));
    for (JsonNode rule : all) {
      assertThat(texts(rule.path("verbs"))).doesNotContain("*");
      assertThat(texts(rule.path("resources"))).doesNotContain("*");
      assertThat(texts(rule.path("apiGroups"))).doesNotContain("*");
    }
    assertThat(rulesFor(clusterRole, "secrets")).as("no Secret outside the namespace").isEmpty();
    assertThat(rulesFor(clusterRole, "leases")).isEmpty();

    // webhook configurations: read cluster-wide (the cluster's revisions and tags), written under
    // the ValidatingAdmissionPolicy that keeps the writes to this release's own configuration and
    // its tags (RevisionChartTest)
    assertThat(verbs(clusterRole, "mutatingwebhookconfigurations"))
        .containsExactlyInAnyOrder("get", "list", "watch", "create", "update", "patch", "delete");
    assertThat(names(docs))
        .contains("ValidatingAdmissionPolicy/" + FULLNAME + "-webhook-configurations");

    assertThat(role.at("/metadata/namespace").asText()).isEqualTo(NS);
    assertNamedExceptCreate(rulesFor(role, "secrets"), List.of(SECRET), Set.of("get", "update"));
    // the certificate manager's lease and the label publisher's
    assertNamedExceptCreate(
        rulesFor(role, "leases"), List.of(LEASE, LABEL_LEASE), Set.of("get", "update", "patch"));

    assertThat(verbs(clusterRole, "nodes"))
        .containsExactlyInAnyOrder("get", "list", "watch", "patch");
    // patch: the leader's injection label, which the fail-closed webhook entry selects on
    assertThat(verbs(clusterRole, "namespaces"))
        .containsExactlyInAnyOrder("get", "list", "watch", "patch");
    assertThat(verbs(clusterRole, "nodecapabilities"))
        .containsExactlyInAnyOrder("get", "list", "watch");
    assertThat(rulesFor(clusterRole, "pods")).as("no pod is read cluster-wide").isEmpty();
    // the CNI DaemonSet's pods, in their namespace only
    JsonNode cniRole = find(docs, "Role", FULLNAME + "-cni-pods");
    assertThat(cniRole.at("/metadata/namespace").asText()).isEqualTo("linkerd-cni");
    assertThat(cniRole.path("rules")).hasSize(1);
    assertThat(verbs(cniRole, "pods")).containsExactlyInAnyOrder("list", "watch");
    // the rendered config names the lease the Role grants
    assertThat(configTree(docs).at("/webhook/cluster/labelLeaseName").asText())
        .isEqualTo(LABEL_LEASE);

    String sa =
        find(docs, "Deployment", FULLNAME).at("/spec/template/spec/serviceAccountName").asText();
    assertThat(sa).isEqualTo(find(docs, "ServiceAccount", sa).at("/metadata/name").asText());
    for (String[] binding :
        new String[][] {{"ClusterRoleBinding", "ClusterRole"}, {"RoleBinding", "Role"}}) {
      JsonNode b = find(docs, binding[0], FULLNAME);
      assertThat(b.at("/roleRef/kind").asText()).isEqualTo(binding[1]);
      assertThat(b.at("/roleRef/name").asText()).isEqualTo(FULLNAME);
      assertThat(b.at("/subjects/0/name").asText()).isEqualTo(sa);
      assertThat(b.at("/subjects/0/namespace").asText()).isEqualTo(NS);
    }
  }

  @Test
  void withoutSelfManagedTlsThereIsNoSecretOrCertificateLease() throws IOException {
    for (UnaryOperator<TemplateCommand> mode :
        List.<UnaryOperator<TemplateCommand>>of(
            t -> t.set("tls.mode", "cert-manager"),
            t ->
                t.set("tls.mode", "secret")
                    .set("tls.secretName", "s")
                    .set("tls.caBundle", "eA=="))) {
      List<JsonNode> docs = render(mode);

      // the label writer's lease stays; no Secret, no certificate lease
      JsonNode role = find(docs, "Role", FULLNAME);
      assertThat(rulesFor(role, "secrets")).isEmpty();
      assertNamedExceptCreate(
          rulesFor(role, "leases"), List.of(LABEL_LEASE), Set.of("get", "update", "patch"));
      // the tags pointing at this revision follow its caBundle in every TLS mode
      assertThat(verbs(find(docs, "ClusterRole", FULLNAME), "mutatingwebhookconfigurations"))
          .containsExactlyInAnyOrder("get", "list", "watch", "create", "update", "patch", "delete");

      // without capability labels the leader still writes the namespaces' injection label
      List<JsonNode> quiet = render(t -> mode.apply(t).set("config.policy.publishLabels", false));
      assertNamedExceptCreate(
          rulesFor(find(quiet, "Role", FULLNAME), "leases"),
          List.of(LABEL_LEASE),
          Set.of("get", "update", "patch"));
    }
  }

  @Test
  void rbacFollowsLabelPublishingAndTheCniNamespace() throws IOException {
    List<JsonNode> docs =
        render(
            t ->
                t.set("config.policy.publishLabels", false)
                    .set("cniPodsRole", "always")
                    .set("config.capabilities.cniDaemonSet.namespace", "cni-system"));
    JsonNode clusterRole = find(docs, "ClusterRole", FULLNAME);
    JsonNode cniRole = find(docs, "Role", FULLNAME + "-cni-pods");

    assertThat(verbs(clusterRole, "nodes")).doesNotContain("patch");
    assertThat(rulesFor(clusterRole, "pods")).isEmpty();
    assertNamedExceptCreate(
        rulesFor(find(docs, "Role", FULLNAME), "leases"),
        List.of(LEASE, LABEL_LEASE),
        Set.of("get", "update", "patch"));
    assertThat(cniRole.at("/metadata/namespace").asText()).isEqualTo("cni-system");
    assertThat(verbs(cniRole, "pods")).containsExactlyInAnyOrder("list", "watch");
    JsonNode binding = find(docs, "RoleBinding", FULLNAME + "-cni-pods");
    assertThat(binding.at("/metadata/namespace").asText()).isEqualTo("cni-system");
    assertThat(binding.at("/subjects/0/namespace").asText()).isEqualTo(NS);
  }

  // ---- config -------------------------------------------------------------------------------

  @Test
  void renderedConfigLoadsAndNamesTheRenderedObjects() throws IOException {
    List<JsonNode> docs = render(t -> t);
    String yaml = find(docs, "ConfigMap", FULLNAME + "-config").at("/data/config.yaml").asText();

    MeshConfig config = ConfigLoader.fromYaml(yaml);

    JsonNode tls = config.tree().at("/webhook/tls");
    assertThat(tls.path("mode").asText()).isEqualTo("self-managed");
    assertThat(tls.path("secretName").asText()).isEqualTo(SECRET);
    assertThat(tls.path("leaseName").asText()).isEqualTo(LEASE);
    assertThat(tls.path("serviceName").asText())
        .isEqualTo(find(docs, "Service", FULLNAME).at("/metadata/name").asText());
    assertThat(tls.path("webhookConfigurationName").asText())
        .isEqualTo(
            find(docs, "MutatingWebhookConfiguration", FULLNAME).at("/metadata/name").asText());
  }

  @Test
  void everyValuesConfigKeyIsADefaultsKeyAndIsWrittenVerbatim() throws IOException {
    JsonNode valuesConfig =
        Charts.YAML.readTree(Charts.CHART.resolve("values.yaml").toFile()).path("config");
    List<String> unknown = new ArrayList<>();
    unknownKeys(valuesConfig, ConfigLoader.defaults().tree(), "config", unknown);

    assertThat(valuesConfig.size()).as("values.yaml surfaces some config").isPositive();
    assertThat(unknown).as("keys of values.yaml's config: that defaults.yaml lacks").isEmpty();

    JsonNode rendered =
        Charts.YAML.readTree(
            find(render(t -> t), "ConfigMap", FULLNAME + "-config")
                .at("/data/config.yaml")
                .asText());
    List<String> differences = new ArrayList<>();
    sameLeaves(valuesConfig, rendered, "config", differences);
    assertThat(differences).isEmpty();
  }

  @Test
  void theChartsOwnTlsNamesCannotBeSetInConfig() {
    assertThatThrownBy(() -> render(t -> t.set("config.webhook.tls.secretName", "other")))
        .hasMessageContaining("config.webhook.tls.secretName is set by the chart");
  }

  // ---- helpers ------------------------------------------------------------------------------

  private Path values(String yaml) throws IOException {
    Path file = Files.createTempFile(tmp, "values", ".yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private static String indent(String text, int spaces) {
    String pad = " ".repeat(spaces);
    return pad + text.strip().replace("\n", "\n" + pad) + "\n";
  }

  static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  static Map<String, String> decodedData(JsonNode secret) {
    Map<String, String> out = new LinkedHashMap<>();
    secret
        .path("data")
        .fields()
        .forEachRemaining(
            e ->
                out.put(
                    e.getKey(),
                    new String(
                        Base64.getDecoder().decode(e.getValue().asText()),
                        StandardCharsets.US_ASCII)));
    return out;
  }

  static String caBundle(JsonNode mwc) {
    return mwc.at("/webhooks/0/clientConfig/caBundle").asText();
  }

  static JsonNode configTree(List<JsonNode> docs) throws IOException {
    return Charts.YAML.readTree(
        find(docs, "ConfigMap", FULLNAME + "-config").at("/data/config.yaml").asText());
  }

  static String tlsVolumeSecret(List<JsonNode> docs) {
    JsonNode volumes = find(docs, "Deployment", FULLNAME).at("/spec/template/spec/volumes");
    return byName(volumes).get("tls").at("/secret/secretName").asText();
  }

  static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  static Map<String, JsonNode> byName(JsonNode array) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    array.forEach(n -> out.put(n.path("name").asText(), n));
    return out;
  }

  static JsonNode envVar(JsonNode container, String name) {
    JsonNode env = byName(container.path("env")).get(name);
    assertThat(env).as("env " + name).isNotNull();
    return env;
  }

  /** Whether a matchLabels selector matches an object with {@code labels}. */
  static boolean selects(JsonNode matchLabels, JsonNode labels) {
    if (matchLabels.isEmpty()) {
      return false;
    }
    Iterator<Map.Entry<String, JsonNode>> it = matchLabels.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!labels.path(e.getKey()).asText().equals(e.getValue().asText())) {
        return false;
      }
    }
    return true;
  }

  static List<String> excludedNamespaces(JsonNode webhook) {
    for (JsonNode e : webhook.at("/namespaceSelector/matchExpressions")) {
      if (e.path("key").asText().equals("kubernetes.io/metadata.name")
          && e.path("operator").asText().equals("NotIn")) {
        return texts(e.path("values"));
      }
    }
    return List.of();
  }

  static List<JsonNode> webhookRoles(List<JsonNode> docs) {
    return docs.stream()
        .filter(d -> Set.of("Role", "ClusterRole").contains(d.path("kind").asText()))
        .filter(Charts.component("webhook"))
        .toList();
  }

  static List<JsonNode> rulesFor(JsonNode role, String resource) {
    List<JsonNode> out = new ArrayList<>();
    role.path("rules")
        .forEach(
            r -> {
              if (texts(r.path("resources")).contains(resource)) {
                out.add(r);
              }
            });
    return out;
  }

  static List<String> verbs(JsonNode role, String resource) {
    return rulesFor(role, resource).stream().flatMap(r -> texts(r.path("verbs")).stream()).toList();
  }

  static JsonNode single(List<JsonNode> rules) {
    assertThat(rules).hasSize(1);
    return rules.get(0);
  }

  /**
   * create cannot be limited by name (the object has none yet), so it stands alone; every other
   * verb only on the one object.
   */
  static void assertNamedExceptCreate(
      List<JsonNode> rules, List<String> names, Set<String> namedVerbs) {
    assertThat(rules).hasSize(2);
    for (JsonNode rule : rules) {
      List<String> verbs = texts(rule.path("verbs"));
      if (verbs.contains("create")) {
        assertThat(verbs).containsExactly("create");
        assertThat(rule.has("resourceNames")).isFalse();
      } else {
        assertThat(texts(rule.path("resourceNames"))).containsExactlyElementsOf(names);
        assertThat(verbs).containsExactlyInAnyOrderElementsOf(namedVerbs);
      }
    }
  }

  /** Keys of {@code user} that {@code defaults} lacks; maps empty in the defaults take any key. */
  static void unknownKeys(JsonNode user, JsonNode defaults, String path, List<String> unknown) {
    if (!user.isObject() || !defaults.isObject() || defaults.isEmpty()) {
      return;
    }
    user.fields()
        .forEachRemaining(
            e -> {
              JsonNode d = defaults.get(e.getKey());
              if (d == null) {
                unknown.add(path + "." + e.getKey());
              } else {
                unknownKeys(e.getValue(), d, path + "." + e.getKey(), unknown);
              }
            });
  }

  static void sameLeaves(
      JsonNode expected, JsonNode actual, String path, List<String> differences) {
    if (expected.isObject()) {
      expected
          .fields()
          .forEachRemaining(
              e ->
                  sameLeaves(
                      e.getValue(), actual.path(e.getKey()), path + "." + e.getKey(), differences));
    } else if (!expected.equals(actual)) {
      differences.add(path + ": " + expected + " rendered as " + actual);
    }
  }

  /**
   * A TLS 1.3 handshake on loopback: the server presents {@code chain} with {@code key}; the client
   * trusts only {@code ca} and verifies the host name, as the API server does with the caBundle and
   * the Service's name.
   */
  static X509Certificate handshake(
      PrivateKey key, List<X509Certificate> chain, X509Certificate ca, String host)
      throws Exception {
    char[] password = "chart".toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("webhook", key, password, chain.toArray(X509Certificate[]::new));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, password);
    SSLContext server = SSLContext.getInstance("TLSv1.3");
    server.init(kmf.getKeyManagers(), null, null);

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext client = SSLContext.getInstance("TLSv1.3");
    client.init(null, tmf.getTrustManagers(), null);

    InetAddress loopback = InetAddress.getLoopbackAddress();
    try (SSLServerSocket listener =
        (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0, 1, loopback)) {
      CompletableFuture<Void> served =
          CompletableFuture.runAsync(
              () -> {
                try (SSLSocket s = (SSLSocket) listener.accept();
                    OutputStream out = s.getOutputStream()) {
                  out.write(42);
                  out.flush();
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      try (Socket plain = new Socket(loopback, listener.getLocalPort());
          SSLSocket socket =
              (SSLSocket)
                  client
                      .getSocketFactory()
                      .createSocket(plain, host, listener.getLocalPort(), true)) {
        SSLParameters params = socket.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        socket.setSSLParameters(params);
        socket.startHandshake();
        try (InputStream in = socket.getInputStream()) {
          assertThat(in.read()).isEqualTo(42);
        }
        served.get(10, TimeUnit.SECONDS);
        return (X509Certificate) socket.getSession().getPeerCertificates()[0];
      }
    }
  }
}
