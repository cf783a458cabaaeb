package io.meshinjector.webhook.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.meshinjector.webhook.MeshInjector;
import io.meshinjector.webhook.support.Cli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code serve}'s command line; none of these start a server. */
class ServeCommandTest {
  @TempDir Path tls;

  @Test
  void anUnknownLogFormatIsAnInvalidCommandLine() throws IOException {
    Cli.Run run = Cli.run("serve", "--log-format", "bogus", "--tls-dir", tls.toString());

    assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .contains("Invalid value for option '--log-format'")
        .contains("'bogus'")
        .contains("ecs");
    assertNothingWritten();
  }

  @Test
  void aPortOutsideTcpsRangeIsAnInvalidCommandLine() throws IOException {
    for (String option : new String[] {"--port", "--metrics-port"}) {
      for (String value : new String[] {"99999", "-1", "https"}) {
        Cli.Run run = Cli.run("serve", option, value, "--tls-dir", tls.toString());

        assertThat(run.code()).as(option + " " + value).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err())
            .as(option + " " + value)
            .contains("Invalid value for option '" + option + "': '" + value + "'");
      }
    }
    assertNothingWritten();
  }

  @Test
  void theMetricsPortMustDifferFromTheHttpsPort() throws IOException {
    Cli.Run both =
        Cli.run("serve", "--port", "9443", "--metrics-port", "9443", "--tls-dir", tls.toString());
    assertThat(both.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(both.err())
        .contains("both 9443")
        .contains("--port")
        .contains("--metrics-port")
        .contains("Usage: mesh-injector serve");

    // the config's metricsPort is 9090
    Cli.Run one = Cli.run("serve", "--port", "9090", "--tls-dir", tls.toString());
    assertThat(one.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(one.err()).contains("both 9090");
    assertNothingWritten();
  }

  @Test
  void aConfigWithTheSamePortTwiceIsAnUnusableConfig() throws IOException {
    Path config = Files.createTempFile("config", ".yaml");
    try {
      Files.writeString(config, "webhook:\n  port: 9444\n  metricsPort: 9444\n");
      Cli.Run run = Cli.run("serve", "--config", config.toString(), "--tls-dir", tls.toString());

      assertThat(run.code()).isEqualTo(ExitCodes.INPUT);
      assertThat(run.err()).contains("both 9444").contains("webhook.metricsPort");
    } finally {
      Files.delete(config);
    }
    assertNothingWritten();
  }

  @Test
  void theTlsDirIsOptionalAndItsDefaultIsInTheHelp() {
    CommandLine cli = MeshInjector.commandLine();
    cli.parseArgs("serve");
    ServeCommand serve = (ServeCommand) cli.getSubcommands().get("serve").getCommand();

    Path expected = Path.of(System.getProperty("user.home"), ".mesh-injector", "tls");
    assertThat(serve.tlsDir).isEqualTo(expected);
    assertThat(Cli.run("serve", "--help").out().replaceAll("\\s+", " "))
        .contains("Default: " + expected + ".");
  }

  @Test
  void withNeitherClusterFilesNorAClusterItSaysSoInOneLineAndExits1(@TempDir Path home)
      throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getenv("KUBECONFIG") == null && System.getenv("KUBERNETES_SERVICE_HOST") == null,
        "this environment points at a cluster");
    String savedHome = System.getProperty("user.home");
    String savedKubeconfig = System.clearProperty("kubeconfig");
    System.setProperty("user.home", home.toString());
    try {
      Cli.Run run = Cli.run("serve", "--tls-dir", tls.toString());

      assertThat(run.code()).isEqualTo(ExitCodes.INPUT);
      assertThat(run.err().strip().lines()).hasSize(1);
      assertThat(run.err()).contains("--cluster").contains("KUBECONFIG");
    } finally {
      System.setProperty("user.home", savedHome);
      if (savedKubeconfig != null) {
        System.setProperty("kubeconfig", savedKubeconfig);
      }
    }
    assertNothingWritten();
  }

  private void assertNothingWritten() throws IOException {
    try (Stream<Path> files = Files.list(tls)) {
      assertThat(files).as("a self-signed set means serve got past its checks").isEmpty();
    }
  }
}
