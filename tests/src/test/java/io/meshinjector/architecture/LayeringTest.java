package io.meshinjector.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The one-way graph of the modules: the pure core imports no Spring, servlet, HTTP server or
 * Kubernetes client (fabric8's model classes are fine), and dependencies point from the edge
 * inwards, never back.
 *
 * <p>The pure modules are checked against an allow-list, not only a ban-list: a new import of
 * {@code java.nio.file}, {@code java.net} or any library not named here fails the build, so I/O
 * cannot creep into the core unseen. Widen the list only for code that stays a function of its
 * inputs.
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

  /** What both pure modules may use: the language, collections, time, and data binding. */
  private static final String[] PURE_PACKAGES = {
    "java.lang",
    "java.lang.invoke", // lambdas and records
    "java.lang.runtime", // records' equals/hashCode/toString
    "java.lang.annotation",
    "java.util..",
    "java.time..",
    "java.math",
    "java.nio.charset", // decoding bytes already in hand
    "io.fabric8.kubernetes.api.model..", // the model, never the client
    "com.fasterxml.jackson.annotation..",
    "com.fasterxml.jackson.core..",
    "com.fasterxml.jackson.databind..",
    "com.fasterxml.jackson.dataformat.yaml..",
  };

  /**
   * java.io types a pure module may name: the exceptions of a parser and the stream of an embedded
   * class-path resource (the config defaults, the templates). No File, Reader over a path, or
   * stream constructor that opens anything.
   */
  private static final String[] PURE_IO_TYPES = {
    "IOException", "UncheckedIOException", "InputStream", "Serializable", "Closeable"
  };

  /** The parts of java.lang that reach outside the process. */
  private static final String[] IMPURE_LANG = {
    "java.lang.ProcessBuilder", "java.lang.Process", "java.lang.Runtime"
  };

  private static JavaClasses classes;

  private static DescribedPredicate<JavaClass> pureFor(String ownPackage, String... extra) {
    String[] packages = new String[PURE_PACKAGES.length + extra.length + 2];
    System.arraycopy(PURE_PACKAGES, 0, packages, 0, PURE_PACKAGES.length);
    System.arraycopy(extra, 0, packages, PURE_PACKAGES.length, extra.length);
    packages[packages.length - 2] = ownPackage;
    packages[packages.length - 1] = ""; // primitives and arrays of them
    DescribedPredicate<JavaClass> types = DescribedPredicate.alwaysFalse();
    for (String name : PURE_IO_TYPES) {
      types = types.or(simpleName(name).and(resideInAnyPackage("java.io")));
    }
    DescribedPredicate<JavaClass> allowed = resideInAnyPackage(packages).or(types);
    return DescribedPredicate.describe(
        "the pure modules' allow-list (LayeringTest.PURE_PACKAGES, PURE_IO_TYPES)",
        c -> allowed.test(c.isArray() ? c.getBaseComponentType() : c));
  }

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
  void ruleEngineUsesOnlyItsAllowList() {
    classes()
        .that()
        .resideInAPackage("io.meshinjector.engine..")
        .should()
        .onlyDependOnClassesThat(
            pureFor("io.meshinjector.engine..", "com.fasterxml.jackson.dataformat.toml.."))
        .check(classes);
  }

  @Test
  void templatesUseOnlyTheirAllowList() {
    classes()
        .that()
        .resideInAPackage("io.meshinjector.templates..")
        .should()
        .onlyDependOnClassesThat(
            pureFor(
                "io.meshinjector..",
                "io.fabric8.zjsonpatch..", // the CLI's patch on a manifest's pod template
                "com.fasterxml.jackson.module.blackbird..", // faster (de)serialisation, no I/O
                "java.security")) // MessageDigest: the templates' content hash
        .check(classes);
  }

  @Test
  void pureModulesStartNoProcess() {
    noClasses()
        .that()
        .resideInAnyPackage("io.meshinjector.engine..", "io.meshinjector.templates..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName(IMPURE_LANG[0])
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName(IMPURE_LANG[1])
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName(IMPURE_LANG[2])
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
