package io.meshinjector.plane;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One real node beside the plane, on this machine: the kubelet v1.32.6 of {@code
 * ../shared/kube-api-test/}, containerd, runc and the bridge CNI plugin (Debian's packages), and
 * kube-proxy in iptables mode, so pods really run (processes in containers under their cgroup
 * limits, their addresses on a bridge of this machine) and Services' ClusterIPs answer from the
 * host, where the API server calls a webhook through its Service. The steps are those of {@code
 * ../shared/kube-api-test/reference/real-node.sh}.
 *
 * <p>Everything stays on this machine: the bridge {@value #BRIDGE} holds {@value #GATEWAY}, which
 * is also the node's address and the API server's advertised one, and the pods' 10.244.0.0/24. Its
 * state lives in one folder; on stop (and before a start, for a crashed run's leftovers) the
 * harness kills what it started, unmounts the pods' volumes, removes the pods' network namespaces,
 * the {@code KUBE-*} iptables chains, the bridge, and on stop the pods' logs this run's kubelet
 * wrote under {@code /var/log/pods} and {@code /var/log/containers}.
 */
public final class RealNode implements AutoCloseable {
  public static final String NAME = "real-1";
  public static final String BRIDGE = "mi-real0";
  public static final String GATEWAY = "10.244.0.1";
  public static final String SUBNET = "10.244.0.0/24";
  private static final Path NETNS = Path.of("/var/run/netns");

  /** Where the kubelet writes containers' logs (and its links to them), on the machine. */
  private static final List<Path> LOG_DIRS =
      List.of(Path.of("/var/log/pods"), Path.of("/var/log/containers"));

  private final KubePlane plane;
  private final Path dir;
  private final Containerd containerd;
  private final Set<String> netnsBefore = new HashSet<>();
  private final Set<Path> logsBefore = new HashSet<>();
  private final List<Process> processes = new ArrayList<>();

  private RealNode(KubePlane plane, Path dir) {
    this.plane = plane;
    this.dir = dir;
    this.containerd = new Containerd(dir.resolve("containerd"));
  }

  /** Why a real node cannot run on this machine, or empty when it can. */
  public static Optional<String> unavailable(Path shared) {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of("a real node needs root (the kubelet, containerd, iptables)");
    }
    for (String tool : List.of("containerd", "ctr", "runc", "ip", "iptables", "umount")) {
      if (HostCommands.which(tool) == null) {
        return Optional.of(
            "no "
                + tool
                + " (Debian's packages containerd, runc, containernetworking-plugins, iptables;"
                + " .ci/run installs them)");
      }
    }
    for (String plugin : List.of("bridge", "host-local", "loopback")) {
      if (!Files.isExecutable(Containerd.CNI_BIN.resolve(plugin))) {
        return Optional.of(
            "no CNI plugin "
                + Containerd.CNI_BIN.resolve(plugin)
                + " (Debian's package containernetworking-plugins)");
      }
    }
    if (!Files.isRegularFile(pauseImage(shared))) {
      return Optional.of("no pause image at " + pauseImage(shared));
    }
    return Optional.empty();
  }

  static Path pauseImage(Path shared) {
    return shared.resolve("../../images/pause-3.10.tar").normalize();
  }

  /**
   * Starts the node in {@code dir} (emptied first) beside {@code plane}, which must have been
   * started with {@link #podNetwork()}, imports {@code images} and waits for the Node to be Ready.
   */
  public static RealNode start(KubePlane plane, Path shared, Path dir, List<Path> images)
      throws Exception {
    cleanLeftovers(dir, plane.bin());
    RealNode node = new RealNode(plane, dir);
    Runtime.getRuntime().addShutdownHook(new Thread(node::close));
    try {
      node.boot(shared, images);
    } catch (Exception | Error e) {
      node.close();
      throw e;
    }
    return node;
  }

  /** What the plane needs to know of this node before it starts. */
  public static KubePlane.PodNetwork podNetwork() {
    return new KubePlane.PodNetwork(GATEWAY, NAME);
  }

  /**
   * The bridge, with the gateway address, before anything else: the kubelet takes it as the node's
   * address (it refuses loopback, and no other address of this machine is a test target) and the
   * bridge plugin finds it in place.
   */
  public static void createBridge() {
    if (HostCommands.run(List.of("ip", "link", "show", BRIDGE), 10).ok()) {
      return;
    }
    HostCommands.check(List.of("ip", "link", "add", BRIDGE, "type", "bridge"), 10);
    HostCommands.check(List.of("ip", "addr", "add", GATEWAY + "/24", "dev", BRIDGE), 10);
    HostCommands.check(List.of("ip", "link", "set", BRIDGE, "up"), 10);
  }

  private void boot(Path shared, List<Path> images) throws Exception {
    Files.createDirectories(dir);
    netnsBefore.addAll(netns());
    logsBefore.addAll(logs());
    subnetHolder(
            HostCommands.check(List.of("ip", "-o", "-4", "addr", "show"), 10),
            HostCommands.check(List.of("ip", "-o", "-4", "route", "show", "table", "all"), 10))
        .ifPresent(
            holder -> {
              throw new IllegalStateException(
                  "the real node's subnet "
                      + SUBNET
                      + " is already held by "
                      + holder
                      + ": the host would have two routes to the pods and to the API server's"
                      + " advertised "
                      + GATEWAY
                      + " (a bridge left by ../shared/kube-api-test/reference/real-node.sh?)."
                      + " Remove it (ip link delete <interface>) and run again");
            });
    createBridge();
    containerd.start(BRIDGE, SUBNET);
    containerd.importImage(pauseImage(shared));
    for (Path image : images) {
      containerd.importImage(image);
    }
    startKubelet();
    startKubeProxy();
    awaitReady(Duration.ofSeconds(90));
  }

  /**
   * The interface other than {@value #BRIDGE} that holds an address in, or a route into, {@value
   * #SUBNET}, from the lines of {@code ip -o -4 addr show} and {@code ip -o -4 route show table
   * all}; empty when there is none.
   */
  static Optional<String> subnetHolder(String addresses, String routes) {
    for (String line : addresses.split("\n")) {
      // 5: rig0    inet 10.244.0.1/24 brd 10.244.0.255 scope global rig0
      String[] f = line.trim().split("\\s+");
      if (f.length >= 4 && f[2].equals("inet") && !f[1].equals(BRIDGE) && overlaps(f[3])) {
        return Optional.of("interface " + f[1] + " (" + f[3] + ")");
      }
    }
    for (String line : routes.split("\n")) {
      // 10.244.0.0/24 dev rig0 proto kernel scope link src 10.244.0.1
      String[] f = line.trim().split("\\s+");
      int dev = java.util.Arrays.asList(f).indexOf("dev");
      String prefix =
          f.length > 0 && !f[0].equals("local") && !f[0].equals("broadcast")
              ? f[0]
              : (f.length > 1 ? f[1] : "");
      if (dev > 0 && dev + 1 < f.length && !f[dev + 1].equals(BRIDGE) && overlaps(prefix)) {
        return Optional.of("interface " + f[dev + 1] + " (route " + prefix + ")");
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the IPv4 prefix {@code cidr} ({@code a.b.c.d/n}, or one address) meets {@value
   * #SUBNET}.
   */
  static boolean overlaps(String cidr) {
    String[] parts = cidr.split("/");
    if (!parts[0].matches("\\d+\\.\\d+\\.\\d+\\.\\d+")) {
      return false;
    }
    int length = parts.length > 1 ? Integer.parseInt(parts[1]) : 32;
    long address = ipv4(parts[0]);
    long subnet = ipv4(SUBNET.split("/")[0]);
    int shortest = Math.min(length, Integer.parseInt(SUBNET.split("/")[1]));
    long mask = shortest == 0 ? 0 : (0xFFFFFFFFL << (32 - shortest)) & 0xFFFFFFFFL;
    return (address & mask) == (subnet & mask);
  }

  private static long ipv4(String dotted) {
    long value = 0;
    for (String octet : dotted.split("\\.")) {
      value = (value << 8) | Integer.parseInt(octet);
    }
    return value;
  }

  private void startKubelet() throws IOException {
    Path root = Files.createDirectories(dir.resolve("kubelet"));
    Path config =
        KubePlane.write(
            dir.resolve("kubelet-config.yaml"),
            String.join(
                "\n",
                "apiVersion: kubelet.config.k8s.io/v1beta1",
                "kind: KubeletConfiguration",
                // the API server cannot call the kubelet (no client certificate for it): its port
                // only answers those who hold the plane's CA-signed certificate
                "authentication: {anonymous: {enabled: false}, webhook: {enabled: false},"
                    + " x509: {clientCAFile: "
                    + plane.caCertificate()
                    + "}}",
                "authorization: {mode: AlwaysAllow}",
                "address: " + GATEWAY,
                "port: " + KubePlane.freePort(),
                "healthzBindAddress: 127.0.0.1",
                "healthzPort: " + KubePlane.freePort(),
                // cgroup v1 here, without systemd as init
                "cgroupDriver: cgroupfs",
                "failSwapOn: false",
                "containerRuntimeEndpoint: unix://" + containerd.socket(),
                "staticPodPath: " + Files.createDirectories(dir.resolve("manifests")),
                "clusterDomain: cluster.local",
                "resolvConf: /etc/resolv.conf",
                // this machine runs other work: no eviction, no image garbage collection
                "enforceNodeAllocatable: []",
                "evictionHard: {}",
                "imageGCHighThresholdPercent: 100",
                "imageGCLowThresholdPercent: 99",
                "localStorageCapacityIsolation: false",
                "readOnlyPort: 0",
                "protectKernelDefaults: false",
                "serializeImagePulls: false",
                // mounted Secrets reach the pods within seconds rather than a minute: the
                // certificate rotation test waits for it
                "syncFrequency: 10s",
                ""));
    launch(
        "kubelet",
        List.of(
            plane.bin().resolve("kubelet").toString(),
            "--config=" + config,
            "--kubeconfig=" + plane.componentKubeconfig("kubelet"),
            "--hostname-override=" + NAME,
            "--node-ip=" + GATEWAY,
            "--root-dir=" + root));
  }

  private void startKubeProxy() throws IOException {
    launch(
        "kube-proxy",
        List.of(
            plane.bin().resolve("kube-proxy").toString(),
            "--kubeconfig=" + plane.componentKubeconfig("kube-proxy"),
            "--proxy-mode=iptables",
            "--cluster-cidr=" + SUBNET,
            "--hostname-override=" + NAME,
            "--conntrack-max-per-core=0",
            // each sync and its duration, for a failure's timeline
            "--v=2",
            "--healthz-bind-address=127.0.0.1:" + KubePlane.freePort(),
            "--metrics-bind-address=127.0.0.1:" + KubePlane.freePort()));
  }

  private void launch(String name, List<String> command) throws IOException {
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile())
            .start();
    synchronized (processes) {
      processes.add(p);
    }
  }

  private void awaitReady(Duration limit) {
    Await.until(
        "the real node " + NAME + " Ready",
        limit,
        () -> {
          synchronized (processes) {
            for (Process p : processes) {
              if (!p.isAlive()) {
                throw new IllegalStateException(
                    "a node process exited: " + KubePlane.tail(log("kubelet"), 30));
              }
            }
          }
          Node node = plane.admin().nodes().withName(NAME).get();
          return node != null
              && node.getStatus().getConditions().stream()
                  .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"))
              && (node.getSpec().getTaints() == null || node.getSpec().getTaints().isEmpty());
        },
        () -> readiness() + "; kubelet log ends:\n" + KubePlane.tail(log("kubelet"), 30));
  }

  private String readiness() {
    Node node = plane.admin().nodes().withName(NAME).get();
    if (node == null) {
      return "no Node " + NAME;
    }
    return node.getStatus().getConditions().stream()
            .filter(c -> c.getType().equals("Ready"))
            .map(NodeCondition::getMessage)
            .findFirst()
            .orElse("no Ready condition")
        + "; taints "
        + node.getSpec().getTaints();
  }

  /** Imports another image into the node's containerd (the cluster has no registry). */
  public void importImage(Path tarball) {
    containerd.importImage(tarball);
  }

  /** A node component's log: {@code kubelet}, {@code kube-proxy}, {@code containerd}. */
  public String log(String component) {
    Path file =
        component.equals("containerd")
            ? dir.resolve("containerd/containerd.log")
            : dir.resolve(component + ".log");
    try {
      return Files.exists(file) ? Files.readString(file) : "(no log " + file + ")";
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /**
   * A container's log, which {@code kubectl logs} cannot fetch here (the API server does not reach
   * the kubelet's port): the kubelet's file under {@code /var/log/pods}.
   */
  public static String containerLog(String namespace, String pod, String uid, String container) {
    Path file = Path.of("/var/log/pods", namespace + "_" + pod + "_" + uid, container, "0.log");
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  public Path dir() {
    return dir;
  }

  @Override
  public synchronized void close() {
    List<Process> all;
    synchronized (processes) {
      all = new ArrayList<>(processes);
      processes.clear();
    }
    // the kubelet first, so it restarts nothing containerd is about to stop
    for (Process p : all) {
      p.destroy();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    containerd.stop();
    removeHostState(dir, plane.bin(), netnsBefore);
    // the pods' logs this node's kubelet wrote: it removes them only for pods it deletes itself
    for (Path log : logs()) {
      if (!logsBefore.contains(log)) {
        HostCommands.run(List.of("rm", "-rf", log.toString()), 30);
      }
    }
  }

  /** A crashed run's processes, mounts and rules, before this run's node starts. */
  private static void cleanLeftovers(Path dir, Path bin) throws IOException {
    HostProcesses.killThoseNaming(dir.toAbsolutePath().normalize().toString());
    removeHostState(dir, bin, null);
    if (Files.exists(dir)) {
      HostCommands.check(List.of("rm", "-rf", dir.toString()), 120);
    }
  }

  /**
   * kube-proxy's rules ({@code kube-proxy --cleanup}), the pods' network namespaces made since
   * {@code before} (all of containerd's {@code cni-*} ones when null: a crashed run's), their
   * mounts, the bridge, and the kubelet's cgroups.
   */
  private static void removeHostState(Path dir, Path bin, Set<String> before) {
    Path proxy = bin.resolve("kube-proxy");
    if (Files.isExecutable(proxy)) {
      HostCommands.run(List.of(proxy.toString(), "--cleanup"), 60);
    }
    for (String ns : netns()) {
      if (ns.startsWith("cni-") && (before == null || !before.contains(ns))) {
        HostCommands.run(List.of("ip", "netns", "delete", ns), 10);
      }
    }
    KubeChains.remove();
    HostProcesses.unmountUnder(dir);
    HostCommands.run(List.of("ip", "link", "delete", BRIDGE), 10);
    for (String controller :
        List.of("cpu", "cpuacct", "memory", "pids", "blkio", "cpuset", "devices", "freezer")) {
      Path kubepods = Path.of("/sys/fs/cgroup", controller, "kubepods");
      if (Files.isDirectory(kubepods)) {
        try (Stream<Path> tree = Files.walk(kubepods)) {
          tree.filter(Files::isDirectory)
              .sorted(java.util.Comparator.reverseOrder())
              .forEach(d -> d.toFile().delete());
        } catch (IOException | RuntimeException e) {
          // best effort: a cgroup that still holds a process stays
        }
      }
    }
  }

  private static Set<Path> logs() {
    Set<Path> all = new HashSet<>();
    for (Path dir : LOG_DIRS) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> list = Files.list(dir)) {
          list.forEach(all::add);
        } catch (IOException e) {
          // nothing to remove there
        }
      }
    }
    return all;
  }

  private static Set<String> netns() {
    if (!Files.isDirectory(NETNS)) {
      return Set.of();
    }
    try (Stream<Path> list = Files.list(NETNS)) {
      return new HashSet<>(list.map(p -> p.getFileName().toString()).toList());
    } catch (IOException e) {
      return Set.of();
    }
  }
}
