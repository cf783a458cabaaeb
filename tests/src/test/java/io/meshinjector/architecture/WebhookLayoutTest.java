package io.meshinjector.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The webhook module laid out by program: the admission server ({@code server}), the CLI ({@code
 * cli}) and the node probe ({@code probe}) sit on shared rooms, and no room reaches back up into a
 * program. The rooms: {@code admission}; how the webhook reads the Kubernetes API, in three layers
 * that point one way ({@code cluster}: the informer view, its stores and health, over {@code
 * client}: the clients, over {@code lists}: the streamed Node and Namespace lists and what is kept
 * of each object); {@code controllers}: the label writers and the leader election; {@code tls}:
 * serving TLS whole (settings, provider, expiry monitor, certificate reconciler, self-managed
 * mode); {@code settings}, {@code manifest}, {@code metrics}, {@code logging}.
 */
class WebhookLayoutTest {
  private static final String WEBHOOK = "io.meshinjector.webhook";
  private static final String[] PROGRAMS = {
    WEBHOOK + ".server..", WEBHOOK + ".cli..", WEBHOOK + ".probe.."
  };

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(WEBHOOK);
  }

  @Test
  void packagesHaveNoCycles() {
    slices().matching(WEBHOOK + ".(**)").should().beFreeOfCycles().check(classes);
  }

  /** One admission, from a decoded request to its reply, runs with no server, client or Spring. */
  @Test
  void theAdmissionCoreKnowsNoTransportAndNoProgram() {
    noClasses()
        .that()
        .resideInAPackage(WEBHOOK + ".admission..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..",
            "reactor..",
            "io.netty..",
            "io.fabric8.kubernetes.client..",
            WEBHOOK + ".server..",
            WEBHOOK + ".cli..",
            WEBHOOK + ".probe..",
            WEBHOOK + ".controllers..",
            WEBHOOK + ".cluster..",
            WEBHOOK + ".client..",
            WEBHOOK + ".lists..",
            WEBHOOK + ".tls..")
        .because("the server and the CLI both call it, and its cases are in-process table tests")
        .allowEmptyShould(false)
        .check(classes);
  }

  @Test
  void sharedRoomsDoNotReachIntoAProgram() {
    noClasses()
        .that()
        .resideInAnyPackage(
            WEBHOOK + ".admission..",
            WEBHOOK + ".cluster..",
            WEBHOOK + ".client..",
            WEBHOOK + ".lists..",
            WEBHOOK + ".controllers..",
            WEBHOOK + ".settings..",
            WEBHOOK + ".manifest..",
            WEBHOOK + ".metrics..",
            WEBHOOK + ".logging..",
            WEBHOOK + ".tls..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(PROGRAMS)
        .check(classes);
  }

  @Test
  void programsDoNotCallEachOther() {
    // serve is a CLI command and starts the server; nothing else crosses between programs
    noClasses()
        .that()
        .resideInAnyPackage(WEBHOOK + ".server..", WEBHOOK + ".probe..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(WEBHOOK + ".cli..")
        .check(classes);
    noClasses()
        .that()
        .resideInAnyPackage(WEBHOOK + ".probe..", WEBHOOK + ".controllers..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(WEBHOOK + ".server..", WEBHOOK + ".admission..")
        .check(classes);
  }

  /**
   * Reading the API server is three layers that point one way: the streamed lists know no client
   * and no view, the clients know no view, and the view writes nothing (the writers are {@code
   * controllers}'), and none of them knows the certificate writers. A class that would cross back
   * belongs to the layer it reaches for.
   */
  @Test
  void theClusterReadingLayersPointOneWay() {
    noClasses()
        .that()
        .resideInAPackage(WEBHOOK + ".lists..")
        .should()
        .dependOnClassesThat(
            resideInAPackage(WEBHOOK + "..").and(resideOutsideOfPackage(WEBHOOK + ".lists..")))
        .allowEmptyShould(false)
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage(WEBHOOK + ".client..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            WEBHOOK + ".cluster..", WEBHOOK + ".controllers..", WEBHOOK + ".revisions..")
        .allowEmptyShould(false)
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage(WEBHOOK + ".cluster..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(WEBHOOK + ".client..", WEBHOOK + ".controllers..", WEBHOOK + ".tls..")
        .allowEmptyShould(false)
        .check(classes);
  }

  /**
   * Serving TLS lives in one package: the settings, the provider, the expiry monitor, the
   * certificate reconciler, self-managed mode and the server's TLS beans. Outside it only the CLI's
   * commands (which write, check or name certificates for a user) use the {@code certs} module.
   */
  @Test
  void servingTlsIsOnePackage() {
    noClasses()
        .that()
        .resideInAPackage(WEBHOOK + "..")
        .and()
        .resideOutsideOfPackages(WEBHOOK + ".tls..", WEBHOOK + ".cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.meshinjector.certs..")
        .allowEmptyShould(false)
        .check(classes);
  }

  /** The old grab-bag is gone: what it held lives in the three layers above. */
  @Test
  void thereIsNoKubePackage() {
    assertThat(classes.stream().map(c -> c.getPackageName()).distinct())
        .doesNotContain(WEBHOOK + ".kube")
        .contains(WEBHOOK + ".cluster", WEBHOOK + ".client", WEBHOOK + ".lists", WEBHOOK + ".tls");
  }

  @Test
  void settingsStandAlone() {
    noClasses()
        .that()
        .resideInAPackage(WEBHOOK + ".settings..")
        .should()
        .dependOnClassesThat(
            resideInAPackage(WEBHOOK + "..").and(resideOutsideOfPackage(WEBHOOK + ".settings..")))
        .check(classes);
  }
}
