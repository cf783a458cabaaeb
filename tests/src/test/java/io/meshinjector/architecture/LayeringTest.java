package io.meshinjector.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The one-way graph of the architecture: the pure core imports no Spring, servlet, HTTP server or
 * Kubernetes client (fabric8's model classes are fine), and dependencies point from the edge
 * inwards, never back.
 */
class LayeringTest {
  private static final String[] IO_FRAMEWORKS = {
    "org.springframework..",
    "jakarta.servlet..",
    "javax.servlet..",
    "org.apache.tomcat..",
    "io.vertx..",
    "okhttp3..",
    "io.fabric8.kubernetes.client..",
    "io.micrometer.."
  };

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.meshinjector");
  }

  @Test
  void ruleEngineIsPure() {
    noClasses()
        .that()
        .resideInAPackage("io.meshinjector.engine..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(IO_FRAMEWORKS)
        .check(classes);
  }

  @Test
  void templatesArePure() {
    noClasses()
        .that()
        .resideInAPackage("io.meshinjector.templates..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(IO_FRAMEWORKS)
        .check(classes);
  }

  @Test
  void ruleEngineDependsOnNoOtherModule() {
    noClasses()
        .that()
        .resideInAPackage("io.meshinjector.engine..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.meshinjector.templates..", "io.meshinjector.webhook..", "io.meshinjector.certs..")
        .check(classes);
  }

  @Test
  void templatesDependOnlyOnTheEngine() {
    noClasses()
        .that()
        .resideInAPackage("io.meshinjector.templates..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.meshinjector.webhook..", "io.meshinjector.certs..")
        .check(classes);
  }

  @Test
  void certsStandAlone() {
    noClasses()
        .that()
        .resideInAPackage("io.meshinjector.certs..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.meshinjector.engine..", "io.meshinjector.templates..", "io.meshinjector.webhook..")
        .check(classes);
  }

  @Test
  void onlyTheWebhookIsTheEdge() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.meshinjector.webhook..")
        .and()
        .resideInAPackage("io.meshinjector..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.meshinjector.webhook..")
        .check(classes);
  }

  @Test
  void enginePackagesHaveNoCycles() {
    slices().matching("io.meshinjector.engine.(*)..").should().beFreeOfCycles().check(classes);
  }
}
