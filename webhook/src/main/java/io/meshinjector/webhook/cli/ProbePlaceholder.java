package io.meshinjector.webhook.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Holds the {@code probe} name until the node probe's own command is registered. */
@Command(
    name = "probe",
    mixinStandardHelpOptions = true,
    description = "Probes this node's capabilities and writes its NodeCapability (not built yet).")
public final class ProbePlaceholder implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getErr().println("error: the probe command is not part of this build yet");
    return ExitCodes.INPUT;
  }
}
