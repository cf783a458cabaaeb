package io.meshinjector.webhook.cli;

import io.meshinjector.engine.revisions.RevisionNames;
import io.meshinjector.webhook.cli.check.Capped;
import io.meshinjector.webhook.cli.tag.TagRemover;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tag remove NAME}: deletes a tag. */
@Command(
    name = "remove",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes tag NAME and says which namespaces followed it. The tag default is kept unless"
          + " --force: the namespaces that follow it would be left without fail-closed injection.",
      "Exit status 6 when refused."
    })
public final class TagRemoveCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "NAME", description = "The tag.")
  String tag;

  @Option(names = "--force", description = "Remove the tag default too.")
  boolean force;

  @Mixin KubeconfigOptions kube;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    return TagCommands.run(
        spec,
        kube,
        "tag remove",
        client -> new TagRemover(client).remove(tag, force),
        TagRemoveCommand::describe);
  }

  static String describe(TagRemover.Removal done) {
    StringBuilder s = new StringBuilder();
    s.append("removed tag ")
        .append(done.tag())
        .append(" (it pointed at revision ")
        .append(done.pointedAt())
        .append(")\n");
    if (done.followers().isEmpty()) {
      s.append("no namespace followed it\n");
      return s.toString();
    }
    s.append(done.followers().size())
        .append(" namespaces followed it: ")
        .append(Capped.join(done.followers()))
        .append('\n');
    if (RevisionNames.DEFAULT.equals(done.tag())) {
      s.append(
          "their pods reach only the catch-all entries, which fail open, until the tag is set"
              + " again (a release with revisions.createDefaultTag creates it again, pointing at"
              + " its own revision)\n");
    } else {
      s.append(
          "their new pods are refused (no release serves "
              + done.tag()
              + ") until the tag is set again or they name a served revision in "
              + RevisionNames.REV
              + "\n");
    }
    return s.toString();
  }
}
