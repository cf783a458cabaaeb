package io.meshinjector.templates;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Sysctl;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Pod Security Standards' {@code baseline} and {@code restricted} controls, written from
 * https://kubernetes.io/docs/concepts/security/pod-security-standards/ (the pod-spec fields; the
 * deprecated AppArmor annotations are checked on the pod's annotations).
 */
final class PodSecurity {
  private PodSecurity() {}

  static final Set<String> BASELINE_CAPABILITIES =
      Set.of(
          "AUDIT_WRITE",
          "CHOWN",
          "DAC_OVERRIDE",
          "FOWNER",
          "FSETID",
          "KILL",
          "MKNOD",
          "NET_BIND_SERVICE",
          "SETFCAP",
          "SETGID",
          "SETPCAP",
          "SETUID",
          "SYS_CHROOT");
  static final Set<String> SAFE_SYSCTLS =
      Set.of(
          "kernel.shm_rmid_forced",
          "net.ipv4.ip_local_port_range",
          "net.ipv4.ip_unprivileged_port_start",
          "net.ipv4.tcp_syncookies",
          "net.ipv4.ping_group_range",
          "net.ipv4.ip_local_reserved_ports",
          "net.ipv4.tcp_keepalive_time",
          "net.ipv4.tcp_fin_timeout",
          "net.ipv4.tcp_keepalive_intvl",
          "net.ipv4.tcp_keepalive_probes");
  static final Set<String> SELINUX_TYPES =
      Set.of("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t");
  static final Set<String> RESTRICTED_VOLUMES =
      Set.of(
          "configMap",
          "csi",
          "downwardAPI",
          "emptyDir",
          "ephemeral",
          "persistentVolumeClaim",
          "projected",
          "secret");

  /** Violations of {@code baseline}, one line each; empty when the pod meets it. */
  static List<String> baseline(PodSpec spec, Map<String, String> annotations) {
    List<String> v = new ArrayList<>();
    PodSecurityContext psc = spec.getSecurityContext();
    if (isTrue(spec.getHostNetwork()) || isTrue(spec.getHostPID()) || isTrue(spec.getHostIPC())) {
      v.add("host namespaces");
    }
    if (psc != null) {
      if (psc.getWindowsOptions() != null && isTrue(psc.getWindowsOptions().getHostProcess())) {
        v.add("pod: hostProcess");
      }
      if (psc.getSeccompProfile() != null
          && "Unconfined".equals(psc.getSeccompProfile().getType())) {
        v.add("pod: seccomp Unconfined");
      }
      if (psc.getSeLinuxOptions() != null && !seLinuxOk(psc.getSeLinuxOptions())) {
        v.add("pod: seLinuxOptions");
      }
      if (psc.getAppArmorProfile() != null
          && "Unconfined".equals(psc.getAppArmorProfile().getType())) {
        v.add("pod: AppArmor Unconfined");
      }
      for (Sysctl s : orEmpty(psc.getSysctls())) {
        if (!SAFE_SYSCTLS.contains(s.getName())) {
          v.add("pod: unsafe sysctl " + s.getName());
        }
      }
    }
    for (Volume vol : orEmpty(spec.getVolumes())) {
      if (vol.getHostPath() != null) {
        v.add("volume " + vol.getName() + ": hostPath");
      }
    }
    annotations.forEach(
        (k, val) -> {
          if (k.startsWith("container.apparmor.security.beta.kubernetes.io/")
              && !(val.equals("runtime/default") || val.startsWith("localhost/"))) {
            v.add("annotation " + k + ": AppArmor " + val);
          }
        });
    for (Container c : all(spec)) {
      SecurityContext sc = c.getSecurityContext();
      String n = c.getName() + ": ";
      for (ContainerPort p : orEmpty(c.getPorts())) {
        if (p.getHostPort() != null && p.getHostPort() != 0) {
          v.add(n + "hostPort " + p.getHostPort());
        }
      }
      if (sc == null) {
        continue;
      }
      if (isTrue(sc.getPrivileged())) {
        v.add(n + "privileged");
      }
      if (sc.getWindowsOptions() != null && isTrue(sc.getWindowsOptions().getHostProcess())) {
        v.add(n + "hostProcess");
      }
      Capabilities caps = sc.getCapabilities();
      if (caps != null) {
        for (String cap : orEmpty(caps.getAdd())) {
          if (!BASELINE_CAPABILITIES.contains(cap)) {
            v.add(n + "adds capability " + cap);
          }
        }
      }
      if (sc.getProcMount() != null && !"Default".equals(sc.getProcMount())) {
        v.add(n + "procMount " + sc.getProcMount());
      }
      if (sc.getSeccompProfile() != null && "Unconfined".equals(sc.getSeccompProfile().getType())) {
        v.add(n + "seccomp Unconfined");
      }
      if (sc.getSeLinuxOptions() != null && !seLinuxOk(sc.getSeLinuxOptions())) {
        v.add(n + "seLinuxOptions");
      }
      if (sc.getAppArmorProfile() != null
          && "Unconfined".equals(sc.getAppArmorProfile().getType())) {
        v.add(n + "AppArmor Unconfined");
      }
    }
    return v;
  }

  /** Violations of {@code restricted} (which includes baseline), one line each. */
  static List<String> restricted(PodSpec spec, Map<String, String> annotations) {
    List<String> v = baseline(spec, annotations);
    for (Volume vol : orEmpty(spec.getVolumes())) {
      String type = volumeType(vol);
      if (!RESTRICTED_VOLUMES.contains(type)) {
        v.add("volume " + vol.getName() + ": type " + type);
      }
    }
    PodSecurityContext psc = spec.getSecurityContext();
    boolean podNonRoot = psc != null && isTrue(psc.getRunAsNonRoot());
    boolean podSeccomp = psc != null && seccompOk(psc.getSeccompProfile());
    if (psc != null && psc.getRunAsUser() != null && psc.getRunAsUser() == 0) {
      v.add("pod: runAsUser 0");
    }
    for (Container c : all(spec)) {
      SecurityContext sc = c.getSecurityContext();
      String n = c.getName() + ": ";
      if (sc == null || !Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
        v.add(n + "allowPrivilegeEscalation is not false");
      }
      Boolean nonRoot = sc == null ? null : sc.getRunAsNonRoot();
      if (Boolean.FALSE.equals(nonRoot) || (nonRoot == null && !podNonRoot)) {
        v.add(n + "runAsNonRoot is not true");
      }
      if (sc != null && sc.getRunAsUser() != null && sc.getRunAsUser() == 0) {
        v.add(n + "runAsUser 0");
      }
      SeccompProfile sp = sc == null ? null : sc.getSeccompProfile();
      if (sp == null ? !podSeccomp : !seccompOk(sp)) {
        v.add(n + "seccomp is not RuntimeDefault or Localhost");
      }
      Capabilities caps = sc == null ? null : sc.getCapabilities();
      if (caps == null || !orEmpty(caps.getDrop()).contains("ALL")) {
        v.add(n + "does not drop ALL capabilities");
      }
      if (caps != null) {
        for (String cap : orEmpty(caps.getAdd())) {
          if (!cap.equals("NET_BIND_SERVICE")) {
            v.add(n + "restricted: adds capability " + cap);
          }
        }
      }
    }
    return v;
  }

  static String volumeType(Volume vol) {
    Map<String, Object> m = Fixtures.JSON.convertValue(vol, Map.class);
    return m.keySet().stream().filter(k -> !k.equals("name")).findFirst().orElse("");
  }

  private static boolean seccompOk(SeccompProfile p) {
    return p != null && ("RuntimeDefault".equals(p.getType()) || "Localhost".equals(p.getType()));
  }

  private static boolean seLinuxOk(io.fabric8.kubernetes.api.model.SELinuxOptions o) {
    return SELINUX_TYPES.contains(o.getType() == null ? "" : o.getType())
        && o.getUser() == null
        && o.getRole() == null;
  }

  private static List<Container> all(PodSpec spec) {
    List<Container> out = new ArrayList<>(orEmpty(spec.getInitContainers()));
    out.addAll(orEmpty(spec.getContainers()));
    return out;
  }

  private static boolean isTrue(Boolean b) {
    return Boolean.TRUE.equals(b);
  }

  private static <T> List<T> orEmpty(List<T> l) {
    return l == null ? List.of() : l;
  }
}
