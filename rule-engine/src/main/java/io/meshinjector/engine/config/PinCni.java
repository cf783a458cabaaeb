package io.meshinjector.engine.config;

/** When a pod on the CNI path carries {@code capability.mesh-injector.io/cni In [ready]}. */
public enum PinCni {
  /** Always: nodes that join later take the pod only once their CNI is ready. */
  ALWAYS,
  /** Only when some candidate's CNI is not ready. */
  WHEN_MIXED
}
