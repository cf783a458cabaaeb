package io.meshinjector.plane;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.UpgradeCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.KeyedCertificate;
import io.meshinjector.certs.Pem;
import io.meshinjector.certs.SubjectNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The chart installed as Helm installs it (helm-java: Helm's own install and upgrade, its CRD
 * handling, hooks and ordering, its {@code lookup} against this API server), on the admin's
 * credentials, as the operator who installs it. Then what the kubelet would do for the webhook's
 * pods, which cannot run here: the config and TLS files a replica mounts. There is no kube-proxy
 * either, so tests that admit pods install with {@code admissionWebhook.url} naming the replicas'
 * address: only {@code clientConfig} differs from a default install.
 */
public final class Release {
  public static final String CHART_NAME = "mesh-injector";

  private final KubePlane plane;
  private final String name;
  private final String namespace;

  private Release(KubePlane plane, String name, String namespace) {
    this.plane = plane;
    this.name = name;
    this.namespace = namespace;
  }

  public static Path chart() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    return root.resolve("helm/" + CHART_NAME);
  }

  static Path trustAnchors() {
    try {
      return Path.of(
          Release.class.getClassLoader().getResource("chart/trust-anchors.yaml").toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Release install(
      KubePlane plane, String name, String namespace, Map<String, Object> values) {
    InstallCommand install =
        new Helm(chart())
            .install()
            .withName(name)
            .withNamespace(namespace)
            .createNamespace()
            .withKubeConfig(plane.adminKubeconfigFile())
            .withValuesFile(trustAnchors());
    values.forEach(install::set);
    install.call();
    return new Release(plane, name, namespace);
  }

  /**
   * The chart installed with {@code valuesFile} after the trust anchors, as {@code helm install -f
   * trust-anchors.yaml -f valuesFile} does.
   */
  public static Release install(KubePlane plane, String name, String namespace, Path valuesFile) {
    new Helm(chart())
        .install()
        .withName(name)
        .withNamespace(namespace)
        .createNamespace()
        .withKubeConfig(plane.adminKubeconfigFile())
        .withValuesFile(trustAnchors())
        .withValuesFile(valuesFile)
        .call();
    return new Release(plane, name, namespace);
  }

  /** {@code helm upgrade -f trust-anchors.yaml -f valuesFile}. */
  public void upgrade(Path valuesFile) {
    new Helm(chart())
        .upgrade()
        .withName(name)
        .withNamespace(namespace)
        .withKubeConfig(plane.adminKubeconfigFile())
        .withValuesFile(trustAnchors())
        .withValuesFile(valuesFile)
        .call();
  }

  public void upgrade(Map<String, Object> values) {
    UpgradeCommand upgrade =
        new Helm(chart())
            .upgrade()
            .withName(name)
            .withNamespace(namespace)
            .withKubeConfig(plane.adminKubeconfigFile())
            .withValuesFile(trustAnchors());
    values.forEach(upgrade::set);
    upgrade.call();
  }

  public void uninstall() {
    Helm.uninstall(name)
        .withNamespace(namespace)
        .withKubeConfig(plane.adminKubeconfigFile())
        .call();
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return namespace;
  }

  public String fullname() {
    return name.contains(CHART_NAME) ? name : name + "-" + CHART_NAME;
  }

  /** The webhook's ServiceAccount. */
  public String serviceAccount() {
    return fullname();
  }

  public String webhookConfigurationName() {
    return fullname();
  }

  /** The value that points the chart's webhook configuration at {@code port} on loopback. */
  public static Map<String, Object> urlValue(int port) {
    return Map.of("admissionWebhook.url", "https://127.0.0.1:" + port + "/mutate");
  }

  /**
   * A webhook replica as the chart's Deployment runs it, not yet started: the release's config and
   * TLS files in {@code dir}, a token of the release's ServiceAccount, listening on {@code port}.
   */
  public Serve replica(String id, Path dir, int port) throws IOException {
    return new Serve(
        id,
        ServiceAccounts.kubeconfig(plane, namespace, serviceAccount()),
        namespace,
        configFile(dir),
        tlsDir(dir.resolve("tls")),
        dir,
        port);
  }

  /** The chart's {@code serve --config} file, as the ConfigMap mounts it. */
  public Path configFile(Path dir) throws IOException {
    Files.createDirectories(dir);
    return KubePlane.write(dir.resolve("config.yaml"), config());
  }

  /** The config the chart rendered, as its ConfigMap holds it now. */
  public String config() {
    ConfigMap cm =
        plane.admin().configMaps().inNamespace(namespace).withName(fullname() + "-config").get();
    return cm.getData().get("config.yaml");
  }

  /**
   * The TLS files a replica mounts from the chart's Secret. Here the API server reaches the
   * replicas at 127.0.0.1, not through the Service's DNS name, so the serving certificate is
   * re-issued by the Secret's own CA (the chart's, which the caBundle holds) for the same names
   * plus 127.0.0.1, and written back into the Secret, as the elected replica's renewal would.
   */
  public Path tlsDir(Path dir) throws IOException {
    KubernetesClient admin = plane.admin();
    Secret secret = admin.secrets().inNamespace(namespace).withName(fullname() + "-tls").get();
    Map<String, String> data = new LinkedHashMap<>(secret.getData());
    String caCrt = decode(data.get("ca.crt"));
    X509Certificate current = Pem.readCertificate(decode(data.get("tls.crt")));
    List<String> names = new ArrayList<>();
    try {
      Collection<List<?>> sans = current.getSubjectAlternativeNames();
      for (List<?> san : sans == null ? List.<List<?>>of() : sans) {
        names.add(String.valueOf(san.get(1)));
      }
    } catch (java.security.cert.CertificateParsingException e) {
      throw new IOException(e);
    }
    if (!names.contains("127.0.0.1")) {
      names.add("127.0.0.1");
      CertificateAuthority ca =
          new CertificateAuthority(
              Pem.readCertificate(caCrt), Pem.readPrivateKey(decode(data.get("ca.key"))));
      KeyedCertificate serving =
          new CertificateIssuer(Clock.systemUTC())
              .issueServing(ca, SubjectNames.of(names), Duration.ofDays(60), KeyType.RSA_2048);
      data.put("tls.crt", encode(Pem.certificate(serving.certificate())));
      data.put("tls.key", encode(Pem.privateKey(serving.privateKey())));
      secret.setData(data);
      admin.secrets().inNamespace(namespace).resource(secret).update();
    }
    Files.createDirectories(dir);
    KubePlane.write(dir.resolve("tls.crt"), decode(data.get("tls.crt")));
    KubePlane.write(dir.resolve("tls.key"), decode(data.get("tls.key")));
    return dir;
  }

  static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  static String encode(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
