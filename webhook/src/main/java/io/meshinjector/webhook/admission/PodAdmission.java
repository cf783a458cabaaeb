package io.meshinjector.webhook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.meshinjector.engine.RuleEngine;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Outcome;
import io.meshinjector.engine.revisions.RevisionConfig;
import io.meshinjector.engine.revisions.RouteResolver;
import io.meshinjector.engine.revisions.Unrouted;
import io.meshinjector.templates.PodInjector;
import io.meshinjector.templates.TemplateConfig;
import io.meshinjector.webhook.logging.RequestContext;
import io.meshinjector.webhook.metrics.AdmissionMetrics;
import io.meshinjector.webhook.settings.PodLimits;
import io.meshinjector.webhook.settings.WebhookSettings;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLogger;

/**
 * The admission of one decoded request: validate, bind, decide, patch, and the reply. It knows
 * nothing of HTTP; the server calls {@link #admit} once it has decoded a body, and the CLI calls
 * {@link #bind} and {@link #decide} for each pod template of a manifest, so both run the same
 * checks, the same binding and the same decision path.
 *
 * <p>{@link #admit} never throws: whatever goes wrong becomes an {@link AdmissionReply}, so one bad
 * request cannot take the server's thread or the server down.
 */
public final class PodAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(PodAdmission.class);

  private final AdmissionCodec codec;
  private final PodValidation validation;
  private final InjectionPipeline pipeline;
  private final Supplier<ClusterView> view;
  private final AdmissionMetrics metrics;
  private final Staleness staleness;
  private final RevisionConfig revision;
  private final RouteResolver routes;
  private final Logger log;

  private PodAdmission(
      AdmissionCodec codec,
      PodValidation validation,
      InjectionPipeline pipeline,
      Supplier<ClusterView> view,
      AdmissionMetrics metrics,
      Staleness staleness,
      RevisionConfig revision,
      RouteResolver routes,
      Logger log) {
    this.codec = Objects.requireNonNull(codec, "codec");
    this.validation = Objects.requireNonNull(validation, "validation");
    this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
    this.view = Objects.requireNonNull(view, "view");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.staleness = Objects.requireNonNull(staleness, "staleness");
    this.revision = Objects.requireNonNull(revision, "revision");
    this.routes = Objects.requireNonNull(routes, "routes");
    this.log = log;
  }

  /**
   * The admission of {@code config}: its input limits, its rule engine and its templates. The one
   * place the admission is assembled, for {@code serve}, the CLI, the tests and the benchmark; the
   * parameters are what differs between them.
   *
   * @param view the cluster view each admission decides over
   * @param metrics where admissions are counted (the CLI's are thrown away)
   * @param staleness the warning an answer carries while the view is old ({@link Staleness#never()}
   *     for a fixed view)
   * @throws io.meshinjector.engine.config.ConfigException naming a key of {@code config} that is
   *     wrong
   */
  public static PodAdmission from(
      MeshConfig config,
      Clock clock,
      Supplier<ClusterView> view,
      AdmissionMetrics metrics,
      Staleness staleness) {
    WebhookSettings settings = WebhookSettings.from(config);
    return new PodAdmission(
        new AdmissionCodec(settings.maxNestingDepth(), settings.maxStringLength()),
        new PodValidation(PodLimits.from(config)),
        new InjectionPipeline(
            new RuleEngine(config.engine(), clock), new PodInjector(TemplateConfig.from(config))),
        view,
        metrics,
        staleness,
        RevisionConfig.from(config),
        RouteResolver.of(config.engine().injection()),
        LOG);
  }

  /**
   * The same admission over {@code view}, counted in {@code metrics} instead of this one's and
   * logging nothing: admissions that are no one's requests, such as the warm-up before readiness,
   * stay out of what an operator reads.
   */
  public PodAdmission unrecorded(Supplier<ClusterView> view, AdmissionMetrics metrics) {
    return new PodAdmission(
        codec,
        validation,
        pipeline,
        view,
        metrics,
        Staleness.never(),
        revision,
        routes,
        NOPLogger.NOP_LOGGER);
  }

  /** The codec of the config's limits: the endpoint reads requests and writes replies with it. */
  public AdmissionCodec codec() {
    return codec;
  }

  /** Where this admission is counted: the endpoint counts its own answers there too. */
  public AdmissionMetrics metrics() {
    return metrics;
  }

  /** The reply to {@code request} sent through {@code entry}; never throws. */
  public AdmissionReply admit(AdmissionRequest request, Entry entry) {
    try (RequestContext ctx = RequestContext.open()) {
      ctx.uid(request.uid()).namespace(request.namespace()).pod(request.name());
      try {
        return admit(ctx, request, entry);
      } catch (BadRequest e) {
        metrics.error("bad-request");
        return AdmissionReply.badRequest(e.getMessage());
      } catch (InvalidPod e) {
        metrics.error("bad-request");
        return AdmissionReply.badRequest(Problems.invalidObject(e));
      } catch (RuntimeException | Error e) {
        if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
          throw (Error) e;
        }
        metrics.error("internal");
        log.error("admission failed", e);
        return AdmissionReply.errored(request.uid());
      }
    }
  }

  private AdmissionReply admit(RequestContext ctx, AdmissionRequest request, Entry entry) {
    if (!request.isPodCreate()) {
      log.debug(
          "allowed without a look: {} {} {}", request.operation(), request.kind(), request.name());
      return AdmissionReply.allowed(request);
    }
    if (request.object() == null || !request.object().isObject()) {
      throw new BadRequest(Problems.NO_OBJECT);
    }
    String namespace = request.object().path("metadata").path("namespace").asText("");
    // the API server leaves it out of the object when it comes from the request path
    Pod pod = bind(request.object(), namespace.isEmpty() ? request.namespace() : namespace);
    ObjectMeta meta = pod.getMetadata();
    String podName = podName(meta, request);
    ctx.namespace(meta.getNamespace()).pod(podName);

    ClusterView cluster = view.get();
    InjectionPipeline.Result result =
        decide(workload(meta, podName), request.object(), pod, cluster);
    Decision decision = result.decision();
    if (entry == Entry.UNROUTED && optedIn(decision)) {
      Optional<AdmissionReply> elsewhere = unrouted(request, pod, cluster);
      if (elsewhere.isPresent()) {
        return elsewhere.get();
      }
    }
    metrics.decision(decision);
    List<String> warnings = new ArrayList<>(decision.warnings());
    staleness.warning().ifPresent(warnings::add);
    Map<String, String> audit =
        Map.of("decision", decision.summary(), "outcome", decision.outcomeCode());
    if (decision.outcome() instanceof Outcome.Refuse refuse) {
      log.info("refused ({}): {}", refuse.reason().code(), refuse.message());
      return AdmissionReply.refused(request, refuse.message(), warnings, audit);
    }
    if (decision.outcome() instanceof Outcome.Skip skip) {
      if (!result.patch().isEmpty()) {
        log.info(
            "completed containers added after injection ({} patch operations)",
            result.patch().size());
        return AdmissionReply.patched(request, result.patch(), warnings, audit);
      }
      log.info("admitted without injection ({}): {}", skip.reason().code(), skip.message());
      return AdmissionReply.allowed(request, warnings, audit);
    }
    log.info("injected: {} ({} patch operations)", decision.summary(), result.patch().size());
    return AdmissionReply.patched(request, result.patch(), warnings, audit);
  }

  /**
   * Whether the decision is about a pod that asked for a proxy: one that is injected, refused, or
   * skipped for a reason other than not asking (the catch-all must route only those).
   */
  private static boolean optedIn(Decision decision) {
    if (!(decision.outcome() instanceof Outcome.Skip skip)) {
      return true;
    }
    return switch (skip.reason()) {
      case INJECTION_DISABLED, NOT_ENABLED, EXCLUDED_NAMESPACE, HOST_NETWORK, OTHER_MESH -> false;
      default -> true;
    };
  }

  /**
   * The reply for a pod the catch-all brought that is not this revision's to inject, or empty when
   * it is: see {@link Unrouted}.
   */
  private Optional<AdmissionReply> unrouted(
      AdmissionRequest request, Pod pod, ClusterView cluster) {
    Unrouted judged =
        routes.unrouted(
            pod.getMetadata().getAnnotations(),
            cluster.namespace(pod.getMetadata().getNamespace()).orElse(null),
            cluster.revisions(),
            revision.name());
    if (judged instanceof Unrouted.Refused refused) {
      String message =
          refused.route().describe()
              + "; no pod is created there without its proxy. Install that revision, or point"
              + " the pod or namespace at one that is served (docs/upgrades.md)";
      log.info("refused (unknown-revision): {}", message);
      metrics.refusal("unknown-revision");
      return Optional.of(
          AdmissionReply.refused(
              request, message, List.of(), Map.of("outcome", "unknown-revision")));
    }
    if (judged instanceof Unrouted.Elsewhere elsewhere) {
      log.debug("not this revision's ({}): {}", revision.name(), elsewhere.why());
      return Optional.of(AdmissionReply.allowed(request));
    }
    return Optional.empty();
  }

  /**
   * The pod of {@code object}, checked against the limits and the shapes the engine takes, typed,
   * and in {@code namespace}.
   *
   * @throws InvalidPod naming what is wrong with it
   * @throws BadRequest when {@code namespace} is empty
   */
  public Pod bind(JsonNode object, String namespace) {
    // before the pod is bound or walked: an oversized one costs no more than this count
    validation.check(object);
    if (namespace == null || namespace.isEmpty()) {
      throw new BadRequest(Problems.NO_NAMESPACE);
    }
    Pod pod = codec.pod(object);
    if (pod.getMetadata() == null) {
      pod.setMetadata(new ObjectMeta());
    }
    pod.getMetadata().setNamespace(namespace);
    return pod;
  }

  /**
   * The decision for {@code pod} and, when it is injected (or completed), its patch.
   *
   * @param object the pod's tree as received: the patch applies to it
   */
  public InjectionPipeline.Result decide(
      String workload, JsonNode object, Pod pod, ClusterView view) {
    return pipeline.run(workload, object, pod, view);
  }

  /** The name for logs: a ReplicaSet's pods have only a generateName at admission. */
  private static String podName(ObjectMeta meta, AdmissionRequest request) {
    if (meta.getName() != null && !meta.getName().isEmpty()) {
      return meta.getName();
    }
    if (meta.getGenerateName() != null && !meta.getGenerateName().isEmpty()) {
      return meta.getGenerateName() + "*";
    }
    return request.name().isEmpty() ? "-" : request.name();
  }

  /** {@code namespace/Kind/name} of the controller that made the pod, else of the pod itself. */
  public static String workload(ObjectMeta meta, String podName) {
    if (meta.getOwnerReferences() != null) {
      for (OwnerReference owner : meta.getOwnerReferences()) {
        if (Boolean.TRUE.equals(owner.getController())) {
          return meta.getNamespace() + "/" + owner.getKind() + "/" + owner.getName();
        }
      }
    }
    return meta.getNamespace() + "/Pod/" + podName;
  }
}
