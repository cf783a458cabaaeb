package io.meshinjector.webhook.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.meshinjector.engine.cluster.ClusterView;
import io.meshinjector.engine.config.MeshConfig;
import io.meshinjector.engine.decision.Annotations;
import io.meshinjector.engine.decision.CompletionRule;
import io.meshinjector.engine.decision.Decision;
import io.meshinjector.engine.decision.Plan;
import io.meshinjector.engine.decision.TraceStep;
import io.meshinjector.engine.revisions.Route;
import io.meshinjector.templates.WorkloadTemplates.PodTemplateRef;
import io.meshinjector.webhook.cli.snapshot.KubeconfigCluster;
import io.meshinjector.webhook.cli.snapshot.PreviewNamespace;
import io.meshinjector.webhook.manifest.Manifests;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code explain}: what the webhook would decide for each pod template, and why. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Shows what the webhook would decide for every pod template of the manifests: redirect"
          + " path, iptables mode, proxy placement, await, candidate node classes, node"
          + " constraint and warnings; with -v, the trace of rules.",
      "Without -f, previews a namespace: -n NS lists its Deployments, StatefulSets, DaemonSets,"
          + " Jobs and CronJobs from the cluster and shows what annotating it inject=enabled would"
          + " do to each; nothing is written.",
      "The cluster view is the --cluster files; without them, the live cluster (--kubeconfig,"
          + " else in-cluster, KUBECONFIG, ~/.kube/config), read once.",
      "The exit status is 3 when any pod would be refused; the reason is also printed on stderr."
    })
public final class ExplainCommand implements Callable<Integer> {
  enum Format {
    text,
    json
  }

  @Option(
      names = {"-o", "--output"},
      defaultValue = "text",
      paramLabel = "FORMAT",
      description =
          "text (a table) or json (one object per pod template). Default: ${DEFAULT-VALUE}.")
  Format output;

  @Option(
      names = {"-v", "--verbose"},
      description = "With text output, also print each decision's trace.")
  boolean verbose;

  @Option(
      names = "--all",
      description =
          "Preview every workload of the namespace -n names, from the cluster (what explain -n NS"
              + " without -f does).")
  boolean all;

  @Mixin ManifestOptions manifests;

  @Mixin SourceOptions sources;

  @Mixin KubeconfigOptions kube;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws JsonProcessingException {
    boolean preview = !manifests.hasFile();
    if (preview && !spec.commandLine().getParseResult().hasMatchedOption("--namespace")) {
      throw new ParameterException(
          spec.commandLine(),
          "give -f FILE to explain manifests, or -n NS to preview a namespace of the cluster");
    }
    if (!preview && all) {
      throw new ParameterException(
          spec.commandLine(), "--all previews the namespace's workloads from the cluster: drop -f");
    }
    MeshConfig config = sources.meshConfig();
    PrintWriter err = spec.commandLine().getErr();
    List<JsonNode> docs;
    ClusterView view;
    if (preview) {
      String ns = manifests.namespace();
      // the workloads always come from the cluster; the view from --cluster files when given
      try (KubeconfigCluster live = kube.connect()) {
        docs = live.workloads(ns);
        view = kube.viewWithRevisions(sources, config, err, live);
        err.println(
            "preview of namespace "
                + ns
                + " on "
                + live.where()
                + " as if annotated "
                + Annotations.INJECT
                + "=enabled; nothing is written");
      }
      view = new PreviewNamespace(view, ns);
    } else {
      // the input's own errors come first, before any cluster is asked
      docs = manifests.documents();
      view = kube.viewWithRevisions(sources, config, err);
    }
    TemplateInjector injector =
        new TemplateInjector(config, view, manifests.namespace(), Clock.systemUTC());
    List<Decision> decisions = new ArrayList<>();
    List<Route> routes = new ArrayList<>();
    for (JsonNode doc : docs) {
      for (PodTemplateRef t : injector.templates(doc)) {
        decisions.add(injector.decide(t).decision());
        routes.add(injector.route(t));
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (output == Format.json) {
      List<Map<String, Object>> json = new ArrayList<>();
      for (int i = 0; i < decisions.size(); i++) {
        json.add(ExplainedRoute.withRoute(decisions.get(i).toJsonMap(), routes.get(i)));
      }
      out.println(
          Manifests.json()
              .copy()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(json));
    } else {
      out.print(table(decisions, routes, verbose));
    }
    out.flush();
    // as inject does: a script that checks a manifest sees why on stderr, whatever -o is
    decisions.stream()
        .filter(Decision::rejected)
        .forEach(d -> err.println("refused: " + TemplateInjector.describe(d)));
    err.flush();
    return decisions.stream().anyMatch(Decision::rejected) ? ExitCodes.REFUSED : ExitCodes.OK;
  }

  /**
   * @param routes the revision of each decision's pods, in the same order
   */
  static String table(List<Decision> decisions, List<Route> routes, boolean verbose) {
    if (decisions.isEmpty()) {
      return "no pod templates found\n";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "WORKLOAD", "OUTCOME", "PATH", "MODE", "PROXY", "AWAIT", "NODES", "CLASSES", "CONSTRAINT"
        });
    for (Decision d : decisions) {
      Plan p = d.plan().orElse(null);
      rows.add(
          new String[] {
            d.workload(),
            d.inject() ? "inject" : (d.rejected() ? "REFUSED " : "skip ") + d.outcomeCode(),
            p == null ? "-" : p.path().redirect().id(),
            p == null || p.path().mode() == null ? "-" : p.path().mode().id(),
            p == null ? "-" : p.proxy().id(),
            p == null ? "-" : (p.proxyAwait() ? "yes" : "no"),
            String.valueOf(d.candidateCount()),
            String.valueOf(d.nodeClasses().size()),
            p == null || p.nodeConstraint() == null ? "-" : p.nodeConstraint().toString()
          });
    }
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder s = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(i == row.length - 1 ? row[i] : pad(row[i], width[i] + 2));
      }
      s.append(line.toString().stripTrailing()).append('\n');
    }
    for (int i = 0; i < decisions.size(); i++) {
      Decision d = decisions.get(i);
      s.append('\n').append(d.workload()).append('\n');
      d.reason().ifPresent(r -> s.append("  reason:     ").append(r).append('\n'));
      d.completionRule().ifPresent(rule -> s.append("  completion: ").append(completion(d, rule)));
      s.append("  revision:   ").append(ExplainedRoute.text(routes.get(i))).append('\n');
      if (!d.candidateNodes().isEmpty()) {
        s.append("  candidates: ").append(String.join(", ", d.candidateNodes()));
        if (d.candidateCount() > d.candidateNodes().size()) {
          s.append(" (").append(d.candidateCount() - d.candidateNodes().size()).append(" more)");
        }
        s.append('\n');
      }
      if (!d.nodeClasses().isEmpty()) {
        s.append("  node classes:\n");
        d.nodeClasses().forEach(c -> s.append("    - ").append(c).append('\n'));
      }
      if (!d.overrides().isEmpty()) {
        // the mesh's own configuration annotations that apply, and whose they are
        s.append("  overrides:\n");
        d.overrides()
            .applied()
            .forEach(
                o ->
                    s.append("    - ")
                        .append(o.annotation())
                        .append(": ")
                        .append(o.written())
                        .append(" (from the ")
                        .append(o.source())
                        .append(")\n"));
      }
      if (!d.warnings().isEmpty()) {
        s.append("  warnings:\n");
        d.warnings().forEach(w -> s.append("    - ").append(w).append('\n'));
      }
      if (verbose) {
        s.append("  trace:\n");
        d.trace().forEach(t -> s.append("    ").append(t).append('\n'));
      }
    }
    return s.toString();
  }

  /**
   * The run-to-completion rule that applied, with its last trace step's words, e.g. {@code
   * constrained: constrained to the nodes that run native sidecars}.
   */
  private static String completion(Decision d, CompletionRule rule) {
    String detail =
        d.trace().stream()
            .filter(t -> t.rule().equals("completion"))
            .reduce((first, second) -> second)
            .map(TraceStep::detail)
            .orElse("");
    return rule.code() + (detail.isEmpty() ? "" : ": " + detail) + "\n";
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(Math.max(0, width - s.length()));
  }
}
