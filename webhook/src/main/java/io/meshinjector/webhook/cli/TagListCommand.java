package io.meshinjector.webhook.cli;

import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.engine.revisions.Revisions;
import io.meshinjector.webhook.cli.snapshot.InjectorConfigurations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tag list}: where each tag points, and which release serves each revision. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = {
      "Lists each tag with the revision it points at, and each served revision with its release"
          + " and webhook configuration."
    })
public final class TagListCommand implements Callable<Integer> {
  @Mixin KubeconfigOptions kube;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    return TagCommands.run(
        spec,
        kube,
        "tag list",
        client -> InjectorConfigurations.read(client).revisions(),
        TagListCommand::describe);
  }

  static String describe(Revisions revisions) {
    if (revisions.revisions().isEmpty() && revisions.tags().isEmpty()) {
      return "no revisions: no webhook configuration is labelled "
          + RevisionNames.REVISION_LABEL
          + " (a release from before revisions serves every opted-in namespace)\n";
    }
    StringBuilder s = new StringBuilder();
    List<String[]> tags = new ArrayList<>();
    tags.add(new String[] {"TAG", "REVISION", ""});
    for (Map.Entry<String, String> t : revisions.tags().entrySet()) {
      boolean served = revisions.revisions().containsKey(t.getValue());
      tags.add(new String[] {t.getKey(), t.getValue(), served ? "" : "(not served)"});
    }
    s.append(revisions.tags().isEmpty() ? "no tags\n" : Columns.of(tags));
    s.append('\n');
    List<String[]> served = new ArrayList<>();
    served.add(new String[] {"REVISION", "RELEASE", "WEBHOOK CONFIGURATION"});
    for (Map.Entry<String, Revisions.Release> r : revisions.revisions().entrySet()) {
      served.add(
          new String[] {r.getKey(), r.getValue().describe(), r.getValue().webhookConfiguration()});
    }
    s.append(revisions.revisions().isEmpty() ? "no served revisions\n" : Columns.of(served));
    return s.toString();
  }
}
