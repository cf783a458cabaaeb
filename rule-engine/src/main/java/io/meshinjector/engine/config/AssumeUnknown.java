package io.meshinjector.engine.config;

/**
 * How the engine counts an {@code unknown} verdict. The iptables choice covers every redirect key
 * (the IPv4 and IPv6 iptables backends and native nftables); an unknown {@code os} always counts as
 * Linux, since every kubelet labels its node's OS. The defaults let a cluster without facts still
 * get the preferred init mode, keep the CNI path for nodes known to be ready, and keep the proxy a
 * regular container where the kubelet version is not known.
 *
 * @param iptables an unknown iptables verdict counts as viable
 * @param cni an unknown cni verdict counts as ready
 * @param nativeSidecar an unknown native-sidecar verdict counts as supported
 * @param ipv6Pods an unknown ipv6-pods verdict counts as present: {@code proxyInit.ipv6}, the value
 *     that decided IPv6 for every pod before the nodes' pod CIDRs did
 */
public record AssumeUnknown(
    boolean iptables, boolean cni, boolean nativeSidecar, boolean ipv6Pods) {}
