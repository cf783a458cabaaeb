package io.meshinjector.webhook;

import io.meshinjector.webhook.cli.CertsCommand;
import io.meshinjector.webhook.cli.CheckCommand;
import io.meshinjector.webhook.cli.ExitCodes;
import io.meshinjector.webhook.cli.ExplainCommand;
import io.meshinjector.webhook.cli.InjectCommand;
import io.meshinjector.webhook.cli.ProbeCommand;
import io.meshinjector.webhook.cli.ServeCommand;
import io.meshinjector.webhook.cli.TagCommand;
import io.meshinjector.webhook.tls.TlsProvider;
import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The one jar's entry point: {@code serve}, {@code inject}, {@code explain}, {@code check}, {@code
 * tag}, {@code probe}, {@code certs}.
 */
@Command(
    name = "mesh-injector",
    mixinStandardHelpOptions = true,
    versionProvider = MeshInjector.Version.class,
    description = {
      "Injects a service-mesh proxy into pods and picks, per node, how their traffic reaches it.",
      "Only 'serve' starts a server; the other commands run and exit."
    },
    subcommands = {
      ServeCommand.class,
      InjectCommand.class,
      ExplainCommand.class,
      CheckCommand.class,
      TagCommand.class,
      ProbeCommand.class,
      CertsCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:success",
      "1:an input, config or cluster file cannot be used",
      "2:invalid command line",
      "3:a pod would be refused",
      "4:an internal failure (out of memory, a bug), said on stderr",
      "5:check: a check failed",
      "6:tag: refused or raced, nothing written"
    })
public final class MeshInjector implements Runnable {
  /** The CLI logs to stderr, quietly, so stdout stays the manifests a user pipes on. */
  static final String CLI_LOGBACK = "io/meshinjector/webhook/cli-logback.xml";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a command");
  }

  public static void main(String[] args) {
    boolean serve =
        Arrays.stream(args)
            .filter(a -> !a.startsWith("-"))
            .findFirst()
            .map("serve"::equals)
            .orElse(false);
    if (serve) {
      TlsProvider.loadInBackground();
    }
    if (!serve && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", CLI_LOGBACK);
    }
    int code;
    try {
      code = commandLine().execute(args);
    } catch (OutOfMemoryError e) {
      System.err.println(outOfMemory(e));
      code = ExitCodes.INTERNAL;
    } catch (RuntimeException | Error e) {
      System.err.println("mesh-injector: internal failure: " + e);
      code = ExitCodes.INTERNAL;
    }
    // serve returns once the server is up; its non-daemon threads keep the JVM running
    if (!(serve && code == ExitCodes.OK)) {
      System.exit(code);
    }
  }

  static String outOfMemory(OutOfMemoryError e) {
    return "mesh-injector: out of memory ("
        + e.getMessage()
        + ", heap limit "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024)
        + " MiB): the command did not finish; give it more heap with MESH_INJECTOR_MAX_HEAP"
        + " (bin/mesh-injector) or -Xmx";
  }

  /** The command line, as {@code main} runs it; tests call {@code execute} on it. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new MeshInjector());
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          // an OutOfMemoryError on a client thread reaches the command wrapped in its failure
          for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof OutOfMemoryError oom) {
              cmd.getErr().println(outOfMemory(oom));
              return ExitCodes.INTERNAL;
            }
          }
          cmd.getErr()
              .println("error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
          return ExitCodes.INPUT;
        });
    return cli;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = MeshInjector.class.getPackage().getImplementationVersion();
      return new String[] {"mesh-injector " + (v == null ? "(development build)" : v)};
    }
  }
}
