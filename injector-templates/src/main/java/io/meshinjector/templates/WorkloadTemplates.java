package io.meshinjector.templates;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import io.meshinjector.engine.decision.Decision;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The pod templates inside the objects {@code inject} reads: Pods, Deployments, StatefulSets,
 * DaemonSets, ReplicaSets, ReplicationControllers, Jobs, CronJobs (batch/v1 and v1beta1) and Lists.
 */
public final class WorkloadTemplates {
  private WorkloadTemplates() {}

  /**
   * One pod template and the object that holds it.
   *
   * @param workload {@code namespace/Kind/name}, as the engine's decisions name it
   */
  public record PodTemplateRef(
      String workload,
      HasMetadata owner,
      Supplier<PodTemplateSpec> getter,
      Consumer<PodTemplateSpec> setter) {
    public PodTemplateRef {
      Objects.requireNonNull(workload, "workload");
      Objects.requireNonNull(owner, "owner");
    }

    /**
     * The pod the engine decides on: the template's metadata and spec, in the owner's namespace (a
     * template carries none). Shares objects with the template; render copies before it mutates.
     */
    public Pod toPod() {
      PodTemplateSpec t = getter.get();
      ObjectMeta meta = t == null || t.getMetadata() == null ? new ObjectMeta() : t.getMetadata();
      if (meta.getNamespace() == null || meta.getNamespace().isEmpty()) {
        meta =
            new io.fabric8.kubernetes.api.model.ObjectMetaBuilder(meta)
                .withNamespace(namespace(owner))
                .build();
      }
      Pod pod = new Pod();
      pod.setMetadata(meta);
      pod.setSpec(t == null ? null : t.getSpec());
      return pod;
    }

    /** Writes a rendered pod's metadata and spec back into the template, in place. */
    public void apply(Pod rendered) {
      PodTemplateSpec t = getter.get();
      ObjectMeta meta = rendered.getMetadata();
      boolean hadNamespace =
          t != null && t.getMetadata() != null && t.getMetadata().getNamespace() != null;
      if (meta != null && !hadNamespace && !(owner instanceof Pod)) {
        meta =
            new io.fabric8.kubernetes.api.model.ObjectMetaBuilder(meta).withNamespace(null).build();
      }
      setter.accept(new PodTemplateSpec(meta, rendered.getSpec()));
    }
  }

  /** The pod templates of {@code object}, in document order; none for other kinds. */
  public static List<PodTemplateRef> podTemplates(KubernetesResource object) {
    List<PodTemplateRef> out = new ArrayList<>();
    collect(object, out);
    return out;
  }

  /**
   * A deep copy of {@code object} with every pod template rendered: {@code decide} gets the
   * workload id and the pod of each template.
   */
  @SuppressWarnings("unchecked")
  public static <T extends KubernetesResource> T inject(
      T object, PodInjector injector, BiFunction<String, Pod, Decision> decide) {
    T copy = deepCopy(object);
    for (PodTemplateRef ref : podTemplates(copy)) {
      Pod pod = ref.toPod();
      ref.apply(injector.render(pod, decide.apply(ref.workload(), pod)));
    }
    return copy;
  }

  /** A deep copy through JSON, which every model class round-trips. */
  @SuppressWarnings("unchecked")
  public static <T extends KubernetesResource> T deepCopy(T object) {
    try {
      return (T)
          PodInjector.JSON.treeToValue(PodInjector.JSON.valueToTree(object), object.getClass());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot copy " + object.getClass().getSimpleName(), e);
    }
  }

  private static void collect(KubernetesResource object, List<PodTemplateRef> out) {
    if (object instanceof KubernetesList list) {
      for (HasMetadata item : list.getItems()) {
        collect(item, out);
      }
    } else if (object instanceof Pod p) {
      out.add(
          new PodTemplateRef(
              id(p),
              p,
              () -> new PodTemplateSpec(p.getMetadata(), p.getSpec()),
              t -> {
                p.setMetadata(t.getMetadata());
                p.setSpec(t.getSpec());
              }));
    } else if (object instanceof Deployment d && d.getSpec() != null) {
      out.add(ref(d, d.getSpec()::getTemplate, d.getSpec()::setTemplate));
    } else if (object instanceof StatefulSet s && s.getSpec() != null) {
      out.add(ref(s, s.getSpec()::getTemplate, s.getSpec()::setTemplate));
    } else if (object instanceof DaemonSet s && s.getSpec() != null) {
      out.add(ref(s, s.getSpec()::getTemplate, s.getSpec()::setTemplate));
    } else if (object instanceof ReplicaSet s && s.getSpec() != null) {
      out.add(ref(s, s.getSpec()::getTemplate, s.getSpec()::setTemplate));
    } else if (object instanceof ReplicationController s && s.getSpec() != null) {
      out.add(ref(s, s.getSpec()::getTemplate, s.getSpec()::setTemplate));
    } else if (object instanceof Job j && j.getSpec() != null) {
      out.add(ref(j, j.getSpec()::getTemplate, j.getSpec()::setTemplate));
    } else if (object instanceof CronJob c && c.getSpec() != null) {
      JobTemplateSpec jt = c.getSpec().getJobTemplate();
      if (jt != null && jt.getSpec() != null) {
        out.add(ref(c, jt.getSpec()::getTemplate, jt.getSpec()::setTemplate));
      }
    } else if (object instanceof io.fabric8.kubernetes.api.model.batch.v1beta1.CronJob c
        && c.getSpec() != null) {
      var jt = c.getSpec().getJobTemplate();
      if (jt != null && jt.getSpec() != null) {
        out.add(ref(c, jt.getSpec()::getTemplate, jt.getSpec()::setTemplate));
      }
    }
  }

  private static PodTemplateRef ref(
      HasMetadata owner, Supplier<PodTemplateSpec> get, Consumer<PodTemplateSpec> set) {
    return new PodTemplateRef(id(owner), owner, get, set);
  }

  /** {@code namespace/Kind/name}. */
  public static String id(HasMetadata object) {
    String name = object.getMetadata() == null ? null : object.getMetadata().getName();
    if (name == null || name.isEmpty()) {
      name = object.getMetadata() == null ? "" : orEmpty(object.getMetadata().getGenerateName());
    }
    return namespace(object) + "/" + object.getKind() + "/" + name;
  }

  private static String namespace(HasMetadata object) {
    return object.getMetadata() == null ? "" : orEmpty(object.getMetadata().getNamespace());
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }
}
