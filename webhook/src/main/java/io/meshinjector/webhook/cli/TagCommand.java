package io.meshinjector.webhook.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code tag}: the cluster's tags, the movable names namespaces follow to a revision. */
@Command(
    name = "tag",
    mixinStandardHelpOptions = true,
    description = {
      "Shows and moves the cluster's tags: names, such as default, that namespaces and pods follow"
          + " (mesh-injector.io/rev) to one of the revisions installed side by side.",
      "A tag is one MutatingWebhookConfiguration, mesh-injector-tag-NAME; moving it is one update"
          + " of that object. Running pods are never touched: mesh-injector check lists the"
          + " workloads to restart. docs/upgrades.md walks through an upgrade."
    },
    subcommands = {TagSetCommand.class, TagListCommand.class, TagRemoveCommand.class})
public final class TagCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "name a subcommand: set, list or remove");
  }
}
