package io.meshinjector.engine.probe;

import io.meshinjector.engine.capability.CapabilityKey;
import java.util.Map;

/**
 * Everything the probe's edge read from one node, as text and parsed values; each part is either
 * there or comes with the reason it is not. {@link ProbeVerdicts} turns it into the node's status.
 *
 * @param osRelease the text of os-release(5), or null with {@code osProblem}
 * @param kernel the running kernel's release, or null with {@code kernelProblem}
 * @param modules the kernel's modules, or null with {@code modulesProblem} (a fault in the probe)
 * @param iptables the host's iptables, or null with {@code iptablesProblem} (a fault in the probe)
 * @param cni what the probe found about the mesh CNI
 * @param selinux the SELinux fact, e.g. {@code enforcing}
 * @param active the active check's result per backend key ({@link ActiveCheck.Backend}); empty when
 *     the check is off
 */
public record NodeMeasurements(
    String osRelease,
    String osProblem,
    String kernel,
    String kernelProblem,
    KernelModules modules,
    String modulesProblem,
    HostIptables iptables,
    String iptablesProblem,
    CniMeasurement cni,
    String selinux,
    Map<CapabilityKey, ActiveCheck.Result> active) {

  public NodeMeasurements {
    active = active == null ? Map.of() : Map.copyOf(active);
  }
}
