package io.meshinjector.engine.config;

/**
 * How the engine counts an {@code unknown} verdict. The defaults let a cluster without facts still
 * get the preferred init mode, keep the CNI path for nodes known to be ready, and keep the proxy a
 * regular container where the kubelet version is not known.
 *
 * @param iptables an unknown iptables verdict counts as viable
 * @param cni an unknown cni verdict counts as ready
 * @param nativeSidecar an unknown native-sidecar verdict counts as supported
 */
public record AssumeUnknown(boolean iptables, boolean cni, boolean nativeSidecar) {}
