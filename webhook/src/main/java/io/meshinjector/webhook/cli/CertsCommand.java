package io.meshinjector.webhook.cli;

import io.meshinjector.certs.CertDirectory;
import io.meshinjector.certs.KeyType;
import io.meshinjector.certs.WriteResult;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code certs}: a CA and a serving certificate for the webhook, as PEM files. */
@Command(
    name = "certs",
    mixinStandardHelpOptions = true,
    description = {
      "Writes ca.crt, tls.crt and tls.key (PKCS#8) into --out: a new CA and a serving certificate"
          + " for the --dns names. A valid set already there is kept unless --force."
    })
public final class CertsCommand implements Callable<Integer> {
  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder to write.")
  Path out;

  @Option(
      names = "--dns",
      required = true,
      arity = "1..*",
      paramLabel = "NAME",
      description =
          "DNS names (or IP addresses) of the serving certificate, e.g."
              + " mesh-injector.mesh-injector.svc. Repeatable.")
  List<String> dns;

  @Option(
      names = "--days",
      defaultValue = "365",
      paramLabel = "N",
      description = "Validity in days (default: ${DEFAULT-VALUE}).")
  int days;

  @Option(names = "--force", description = "Replace a valid set.")
  boolean force;

  @Option(
      names = "--key-type",
      defaultValue = "ec-p256",
      paramLabel = "TYPE",
      description = "ec-p256, rsa-2048 or rsa-3072 (default: ${DEFAULT-VALUE}).")
  String keyType;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    WriteResult result =
        CertDirectory.writeSet(
            out, dns, days, force, KeyType.parse(keyType), java.time.Clock.systemUTC());
    if (result instanceof WriteResult.RefusedValid) {
      // a script that meant to rotate must notice that nothing changed
      spec.commandLine().getErr().println(result.message());
      return ExitCodes.INPUT;
    }
    spec.commandLine().getOut().println(result.message());
    return ExitCodes.OK;
  }
}
