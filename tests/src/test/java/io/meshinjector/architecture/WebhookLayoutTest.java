package io.meshinjector.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The webhook module laid out by program: the admission server ({@code server}), the CLI ({@code
 * cli}) and the node probe ({@code probe}) sit on shared rooms ({@code admission}, {@code kube}:
 * the Kubernetes API as the webhook reads it, {@code controllers}: the label and certificate
 * writers that {@code server} and {@code cli} start, {@code settings}, {@code manifest}, {@code
 * metrics}, {@code logging}, {@code tls}), and no room reaches back up into a program.
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
            WEBHOOK + ".kube..")
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
            WEBHOOK + ".kube..",
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
