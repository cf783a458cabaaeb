package io.meshinjector.webhook.controllers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One kind of object the {@link LabelWriter} keeps labelled: which objects, which labels they
 * should carry, and where their merge patch goes. The writer does the rest (leadership, resync,
 * echo wait, pacing, de-duplicated warnings) the same way for every subject.
 */
public interface LabelSubject {

  /** The labels an object should carry and the ones of the same keys it carries now. */
  record Labels(Map<String, String> wanted, Map<String, String> present) {}

  /** The name of the subject's writing thread (it shows in the log). */
  String thread();

  /** What the writer logs when it starts writing, after {@code "labels: "}. */
  String starting();

  /** Registers the writer's listener, called with an object's name when its labels may change. */
  void onChange(Consumer<String> listener);

  /** Every object, for the comparison of all. */
  Collection<String> names();

  /**
   * One pass's reading of the objects' labels; empty for an object that is gone or not known yet.
   * Called once a pass, so what is costly to read is read once for all the objects.
   */
  Function<String, Optional<Labels>> reader();

  /** The object a merge patch of its {@code metadata.labels} is sent to. */
  Resource<? extends HasMetadata> object(String name);

  /** Patches a second at the most; 0 for no limit. */
  int patchesPerSecond();

  /** A patch was sent: the subject's log line and count. */
  void patched(String name, Map<String, String> patch);

  /**
   * A patch failed: the subject counts it, and warns when {@code warn} (the failure is not a 404
   * and differs from the last one).
   */
  void failed(String name, KubernetesClientException e, boolean warn);

  /** What makes two failures the same, so that a repeated one is logged once. */
  default String problem(KubernetesClientException e) {
    return e.getCode() + " " + e.getMessage();
  }
}
