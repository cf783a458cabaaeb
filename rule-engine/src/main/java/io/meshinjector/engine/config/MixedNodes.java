package io.meshinjector.engine.config;

/** What to do when no path works on all candidate nodes but one works on some. */
public enum MixedNodes {
  /** Take the path viable on most candidates and pin the pod there with a node-affinity term. */
  CONSTRAIN,
  /** Refuse the pod, naming the node classes and what each lacks. */
  REJECT
}
