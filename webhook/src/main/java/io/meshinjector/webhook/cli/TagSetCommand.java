package io.meshinjector.webhook.cli;

import io.meshinjector.webhook.cli.tag.RouteFollowers;
import io.meshinjector.webhook.cli.tag.TagSetter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tag set NAME --revision REV}: creates a tag or moves it onto another revision. */
@Command(
    name = "set",
    mixinStandardHelpOptions = true,
    description = {
      "Points tag NAME at revision REV, creating the tag when there is none: the namespaces that"
          + " follow it get their new pods from REV.",
      "Refused, with nothing written, when no single release serves REV, when REV's webhook"
          + " Deployment has no ready replica, when NAME is a served revision's name, or when the"
          + " API server is older than 1.28. The move is one update at the version read: if"
          + " someone moved the tag meanwhile, nothing is written.",
      "Exit status 6 when refused."
    })
public final class TagSetCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "NAME", description = "The tag, e.g. default or stable.")
  String tag;

  @Option(
      names = "--revision",
      required = true,
      paramLabel = "REV",
      description = "The revision the tag points at afterwards.")
  String revision;

  @Option(
      names = "--dry-run",
      description = "Check everything and say what would change, but write nothing.")
  boolean dryRun;

  @Mixin KubeconfigOptions kube;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    return TagCommands.run(
        spec,
        kube,
        "tag set",
        client -> new TagSetter(client).set(tag, revision, dryRun),
        done -> describe(done, dryRun));
  }

  static String describe(TagSetter.Move done, boolean dryRun) {
    StringBuilder s = new StringBuilder();
    String target = "revision " + done.to() + " (release " + done.release().describe() + ")";
    if (done.unchanged()) {
      s.append("tag ").append(done.tag()).append(" already points at ").append(target);
      s.append("; nothing to do\n");
      return s.toString();
    }
    if (dryRun) {
      s.append("dry run, nothing written: would ");
    }
    s.append(
        done.from().isPresent() ? (dryRun ? "move" : "moved") : (dryRun ? "create" : "created"));
    s.append(" tag ").append(done.tag()).append(": ");
    s.append(done.from().map(f -> "revision " + f).orElse("(new)")).append(" -> ").append(target);
    s.append('\n');
    s.append(done.followers().size())
        .append(" namespaces follow tag ")
        .append(done.tag())
        .append(" (")
        .append(RouteFollowers.selector(done.tag()))
        .append(")")
        .append(dryRun ? ": their new pods would be" : ": their new pods are")
        .append(" injected by revision ")
        .append(done.to())
        .append(".\n");
    s.append(
        "Running pods are not touched: mesh-injector check lists the workloads to restart"
            + " (kubectl rollout restart).\n");
    return s.toString();
  }
}
