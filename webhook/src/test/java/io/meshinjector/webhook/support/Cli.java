package io.meshinjector.webhook.support;

import io.meshinjector.webhook.MeshInjector;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** Runs the CLI in-process, as {@code main} would, capturing stdout and stderr. */
public final class Cli {
  private Cli() {}

  public record Run(int code, String out, String err) {}

  public static Run run(String... args) {
    return runWithStdin(null, args);
  }

  public static synchronized Run runWithStdin(String stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = MeshInjector.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    InputStream before = System.in;
    if (stdin != null) {
      System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    }
    try {
      int code = cli.execute(args);
      return new Run(code, out.toString(), err.toString());
    } finally {
      System.setIn(before);
    }
  }
}
