package io.meshinjector.plane;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.meshinjector.certs.CertificateAuthority;
import io.meshinjector.certs.CertificateIssuer;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.KeyedCertificate;
import io.meshinjector.certs.Pem;
import io.meshinjector.certs.SubjectNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.zip.GZIPInputStream;

/**
 * A real Kubernetes v1.32 control plane on loopback: etcd, kube-apiserver, kube-scheduler and
 * kube-controller-manager as plain processes, from the binaries of {@code
 * ../shared/kube-api-test/}. No kubelet: Nodes are objects the tests create.
 *
 * <p>Written here rather than on fabric8's kube-api-test (7.4.0): that library appends {@code
 * --disable-admission-plugins ServiceAccount} after the caller's flags, and the API server refuses
 * a plugin named in both lists, so a plane with the ServiceAccount admission plugin, which every
 * real cluster runs and which changes every pod after our webhook, cannot be had from it. It also
 * runs neither the scheduler nor the controller-manager.
 *
 * <p>The API server runs its default admission plugins (ServiceAccount, PodSecurity,
 * MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ...) plus NodeRestriction, and authorizes
 * with Node and RBAC. The tests' admin is a static token in {@code system:masters}; everything the
 * product runs uses ServiceAccount tokens.
 */
public final class KubePlane implements AutoCloseable {
  public static final String VERSION = "1.32.6";
  static final String ADMIN_TOKEN_USER = "plane-admin";

  private final Path dir;
  private final Path bin;
  private final List<Process> processes = new ArrayList<>();
  private final String adminToken = UUID.randomUUID().toString();
  private final int apiPort;
  private final PodNetwork podNetwork;
  private final Map<String, String> componentTokens = new java.util.LinkedHashMap<>();
  private Path caCrt;
  private KubernetesClient admin;

  private KubePlane(Path dir, Path bin, PodNetwork podNetwork) {
    this.dir = dir;
    this.bin = bin;
    this.apiPort = freePort();
    this.podNetwork = podNetwork;
  }

  /**
   * For a plane beside a real node: the address on the node's bridge where the API server is
   * advertised (pods reach it through the {@code kubernetes} Service, which kube-proxy leads
   * there), and the identities of the node's kubelet and of kube-proxy, as static tokens.
   */
  public record PodNetwork(String gateway, String nodeName) {}

  /** Where the shared binaries are, or why the real-plane tests cannot run here. */
  public static Optional<Path> sharedBinaries() {
    Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    Path folder =
        root.resolve("../shared/kube-api-test/k8s/" + VERSION + "-linux-amd64").normalize();
    return Files.isRegularFile(folder.resolve("kube-apiserver.gz"))
        ? Optional.of(folder)
        : Optional.empty();
  }

  /** Unpacks the binaries into {@code work/bin} (checking their SHA-256) and starts the plane. */
  public static KubePlane start(Path shared, Path work) throws Exception {
    return start(shared, work, null);
  }

  /**
   * A plane a real node's pods can reach: the API server listens on every address and advertises
   * {@code podNetwork.gateway()}, so the endpoint reconciler publishes it behind the {@code
   * kubernetes} Service (loopback may not be stored there); and the controller that publishes the
   * configmap {@code openshift-service-ca.crt} runs, because this build's ServiceAccount plugin
   * adds it to every pod's token volume and a kubelet cannot mount the token without it.
   */
  public static KubePlane start(Path shared, Path work, PodNetwork podNetwork) throws Exception {
    Path bin = unpack(shared, work.resolve("bin"));
    Path dir = Files.createTempDirectory(Files.createDirectories(work), "plane-");
    KubePlane plane = new KubePlane(dir, bin, podNetwork);
    Runtime.getRuntime().addShutdownHook(new Thread(plane::kill));
    try {
      plane.boot();
    } catch (Exception | Error e) {
      plane.close();
      throw e;
    }
    return plane;
  }

  // synchronized: the two lanes' planes (SharedPlane) start at once and unpack into one folder
  private static synchronized Path unpack(Path shared, Path bin) throws IOException {
    Files.createDirectories(bin);
    Map<String, String> sums = new java.util.HashMap<>();
    for (String line : Files.readAllLines(shared.resolve("SHA256SUMS"))) {
      String[] parts = line.trim().split("\\s+");
      if (parts.length == 2) {
        sums.put(parts[1].replaceFirst("^\\*", ""), parts[0]);
      }
    }
    for (String name :
        List.of(
            "etcd",
            "kube-apiserver",
            "kube-scheduler",
            "kube-controller-manager",
            "kubectl",
            "kubelet",
            "kube-proxy")) {
      Path out = bin.resolve(name);
      String expected = sums.getOrDefault(name, sums.get(name + ".gz"));
      if (Files.isExecutable(out) && (expected == null || expected.equals(sha256(out)))) {
        continue;
      }
      Path tmp = bin.resolve(name + ".tmp");
      try (InputStream in =
          new GZIPInputStream(Files.newInputStream(shared.resolve(name + ".gz")))) {
        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      }
      if (sums.containsKey(name) && !sums.get(name).equals(sha256(tmp))) {
        throw new IOException(name + ": SHA-256 differs from " + shared.resolve("SHA256SUMS"));
      }
      tmp.toFile().setExecutable(true);
      Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    return bin;
  }

  private static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private void boot() throws Exception {
    Path pki = Files.createDirectories(dir.resolve("pki"));
    Files.createDirectories(dir.resolve("logs"));
    CertificateIssuer issuer = new CertificateIssuer(Clock.systemUTC());
    CertificateAuthority ca = issuer.newAuthority(Duration.ofDays(30), KeyType.RSA_2048);
    List<String> names =
        new ArrayList<>(
            List.of(
                "localhost",
                "127.0.0.1",
                "10.96.0.1",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local"));
    if (podNetwork != null) {
      names.add(podNetwork.gateway());
    }
    KeyedCertificate serving =
        issuer.issueServing(ca, SubjectNames.of(names), Duration.ofDays(30), KeyType.RSA_2048);
    caCrt = write(pki.resolve("ca.crt"), Pem.certificate(ca.certificate()));
    Path tlsCrt = write(pki.resolve("apiserver.crt"), Pem.certificate(serving.certificate()));
    Path tlsKey = write(pki.resolve("apiserver.key"), Pem.privateKey(serving.privateKey()));
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    KeyPair sa = rsa.generateKeyPair();
    Path saKey = write(pki.resolve("sa.key"), Pem.privateKey(sa.getPrivate()));
    Path saPub =
        write(
            pki.resolve("sa.pub"),
            "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(sa.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
    StringBuilder tokenLines =
        new StringBuilder(
            adminToken + "," + ADMIN_TOKEN_USER + ",plane-admin-uid,\"system:masters\"\n");
    if (podNetwork != null) {
      // the node's kubelet as the Node authorizer and NodeRestriction know it, and kube-proxy as
      // the built-in binding system:node-proxier names it
      componentTokens.put("kubelet", UUID.randomUUID().toString());
      componentTokens.put("kube-proxy", UUID.randomUUID().toString());
      tokenLines.append(
          componentTokens.get("kubelet")
              + ",system:node:"
              + podNetwork.nodeName()
              + ",kubelet-uid,\"system:nodes\"\n");
      tokenLines.append(componentTokens.get("kube-proxy") + ",system:kube-proxy,kube-proxy-uid\n");
    }
    Path tokens = write(pki.resolve("tokens.csv"), tokenLines.toString());
    Path adminKubeconfig = adminKubeconfig();

    int etcdPort = freePort();
    int peerPort = freePort();
    Path etcdData = Files.createDirectories(dir.resolve("etcd"));
    Process etcd =
        launch(
            "etcd",
            List.of(
                bin.resolve("etcd").toString(),
                "--name=plane",
                "--data-dir=" + etcdData,
                "--listen-client-urls=http://127.0.0.1:" + etcdPort,
                "--advertise-client-urls=http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls=http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
                "--initial-cluster=plane=http://127.0.0.1:" + peerPort,
                "--unsafe-no-fsync=true",
                "--logger=zap",
                "--log-outputs=stderr"));
    awaitHttp(
        "etcd", etcd, "http://127.0.0.1:" + etcdPort + "/health", false, Duration.ofSeconds(30));

    Process apiserver =
        launch(
            "kube-apiserver",
            List.of(
                bin.resolve("kube-apiserver").toString(),
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--bind-address=" + (podNetwork == null ? "127.0.0.1" : "0.0.0.0"),
                "--advertise-address=" + (podNetwork == null ? "127.0.0.1" : podNetwork.gateway()),
                "--secure-port=" + apiPort,
                "--tls-cert-file=" + tlsCrt,
                "--tls-private-key-file=" + tlsKey,
                "--client-ca-file=" + caCrt,
                "--token-auth-file=" + tokens,
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + saPub,
                "--service-account-signing-key-file=" + saKey,
                "--service-cluster-ip-range=10.96.0.0/16",
                // loopback may not be stored in the default/kubernetes Endpoints
                "--endpoint-reconciler-type=" + (podNetwork == null ? "none" : "lease"),
                "--authorization-mode=Node,RBAC",
                // the default plugins (ServiceAccount, PodSecurity, the admission webhooks and
                // policies, ...) and NodeRestriction, as kubeadm runs them
                "--enable-admission-plugins=NodeRestriction",
                "--allow-privileged=true",
                "--profiling=false",
                "--v=1"));
    awaitHttp("kube-apiserver", apiserver, apiUrl() + "/readyz", true, Duration.ofSeconds(90));
    Config adminConfig = Config.fromKubeconfig(Files.readString(adminKubeconfig));
    // at 20,000 Nodes the API server, sharing two cores with the churn and the scheduler, can take
    // longer than fabric8's 10 s to answer a list; tests/bench/large-cluster.sh gives it longer
    Integer timeout = Integer.getInteger("plane.requestTimeoutSeconds");
    if (timeout != null) {
      adminConfig.setRequestTimeout((int) Duration.ofSeconds(timeout).toMillis());
    }
    admin = new KubernetesClientBuilder().withConfig(adminConfig).build();

    int schedulerPort = freePort();
    Process scheduler =
        launch(
            "kube-scheduler",
            List.of(
                bin.resolve("kube-scheduler").toString(),
                "--kubeconfig=" + adminKubeconfig,
                "--bind-address=127.0.0.1",
                "--secure-port=" + schedulerPort,
                "--leader-elect=false",
                "--v=1"));
    int kcmPort = freePort();
    Process kcm =
        launch(
            "kube-controller-manager",
            List.of(
                bin.resolve("kube-controller-manager").toString(),
                "--kubeconfig=" + adminKubeconfig,
                "--bind-address=127.0.0.1",
                "--secure-port=" + kcmPort,
                "--leader-elect=false",
                "--use-service-account-credentials=false",
                // node-ipam needs pod CIDRs; the service-ca publisher is OpenShift's, needed only
                // where a kubelet mounts tokens
                podNetwork == null
                    ? "--controllers=*,-node-ipam-controller,-service-ca-certificate-publisher-controller"
                    : "--controllers=*,-node-ipam-controller",
                // no kubelet renews the fake Nodes: never mark them NotReady
                "--node-monitor-grace-period=87600h",
                "--node-startup-grace-period=87600h",
                "--service-cluster-ip-range=10.96.0.0/16",
                "--root-ca-file=" + caCrt,
                "--service-account-private-key-file=" + saKey,
                "--v=1"));
    awaitHttp(
        "kube-scheduler",
        scheduler,
        "https://127.0.0.1:" + schedulerPort + "/healthz",
        false,
        Duration.ofSeconds(60));
    awaitHttp(
        "kube-controller-manager",
        kcm,
        "https://127.0.0.1:" + kcmPort + "/healthz",
        false,
        Duration.ofSeconds(60));
    // the controllers really work once the default ServiceAccount exists
    Await.until(
        "the default ServiceAccount in default",
        Duration.ofSeconds(60),
        () -> admin.serviceAccounts().inNamespace("default").withName("default").get() != null);
  }

  private Path adminKubeconfig() throws IOException {
    return write(
        dir.resolve("admin.kubeconfig"), Kubeconfigs.withToken(apiUrl(), caPem(), adminToken));
  }

  private String caPem() {
    try {
      return Files.readString(caCrt);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String apiUrl() {
    return "https://127.0.0.1:" + apiPort;
  }

  public Path caCertificate() {
    return caCrt;
  }

  public KubernetesClient admin() {
    return admin;
  }

  public Path adminKubeconfigFile() {
    return dir.resolve("admin.kubeconfig");
  }

  public Path dir() {
    return dir;
  }

  public Path kubectl() {
    return bin.resolve("kubectl");
  }

  /** A kubeconfig for a component of the real node ({@code kubelet}, {@code kube-proxy}). */
  public Path componentKubeconfig(String component) throws IOException {
    String token = componentTokens.get(component);
    if (token == null) {
      throw new IllegalArgumentException(
          "no identity for " + component + ": start the plane with a PodNetwork");
    }
    return kubeconfig(component, token);
  }

  public Path bin() {
    return bin;
  }

  /** A kubeconfig holding {@code token}, for a process that runs as its ServiceAccount. */
  public Path kubeconfig(String name, String token) throws IOException {
    return write(
        dir.resolve(name + ".kubeconfig"), Kubeconfigs.withToken(apiUrl(), caPem(), token));
  }

  /** The log a component of the plane wrote, for a failure's message. */
  public String log(String component) {
    try {
      return Files.readString(dir.resolve("logs/" + component + ".log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private Process launch(String name, List<String> command) throws IOException {
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("logs/" + name + ".log").toFile())
            .start();
    synchronized (processes) {
      processes.add(p);
    }
    return p;
  }

  private void awaitHttp(
      String name, Process process, String url, boolean withAdmin, Duration limit)
      throws Exception {
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(Tls.trustAll())
            // the scheduler's and controller-manager's servers answer an HTTP/2 client with GOAWAY
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + limit.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        last = "the process exited with status " + process.exitValue();
        break;
      }
      try {
        HttpRequest.Builder req =
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2));
        if (withAdmin) {
          req.header("Authorization", "Bearer " + adminToken);
        }
        HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        name
            + " not ready at "
            + url
            + " after "
            + limit
            + " ("
            + last
            + "); its log ends:\n"
            + tail(log(name), 40));
  }

  public static String tail(String text, int lines) {
    String[] all = text.split("\n");
    return String.join(
        "\n", java.util.Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
  }

  static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text);
    return file;
  }

  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void kill() {
    List<Process> all;
    synchronized (processes) {
      all = new ArrayList<>(processes);
      processes.clear();
    }
    // controllers first, etcd last
    java.util.Collections.reverse(all);
    for (Process p : all) {
      p.destroy();
      try {
        if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
    }
    kill();
  }
}
