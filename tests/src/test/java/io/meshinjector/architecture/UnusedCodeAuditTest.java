package io.meshinjector.architecture;

import static com.tngtech.archunit.core.domain.JavaFieldAccess.AccessType.GET;
import static com.tngtech.archunit.core.domain.JavaModifier.BRIDGE;
import static com.tngtech.archunit.core.domain.JavaModifier.PRIVATE;
import static com.tngtech.archunit.core.domain.JavaModifier.STATIC;
import static com.tngtech.archunit.core.domain.JavaModifier.SYNTHETIC;
import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Production constructors, methods and record accessors that no production code reaches: reached
 * only from tests, or by nothing (issue 49). A member only tests reach lets them build values in a
 * way production never does; a member nothing reaches is code kept for no one.
 *
 * <p>The audit reads bytecode: the classes of the four production modules ({@code target/classes})
 * and the test classes of every module ({@code target/test-classes}), as the reactor's test phase
 * leaves them. Run it through the reactor from the project root: {@code ./mvnw -B -pl tests -am
 * test -Dtest=UnusedCodeAuditTest -Dsurefire.failIfNoSpecifiedTests=false}.
 *
 * <p>A member is reached when production code calls it or takes it as a method reference, from a
 * member that is itself reached: a constructor that only an unreached one delegates to is unreached
 * too. A record's accessor is reached also when production reads its component's field directly
 * (the record's own methods do): an accessor goes only with its component, and that is in use.
 *
 * <p>Members that the JVM, the compiler or a framework reach with no call in the bytecode are not
 * audited; {@link #ENTRY_POINTS} names each kind and why. No production record is written by
 * Jackson (the webhook writes maps, JSON trees and fabric8's model objects), so no record's
 * accessors are Jackson's entry points; a record that comes to be must be named there.
 */
class UnusedCodeAuditTest {
  private static final Path ROOT =
      Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();

  private static final List<String> PRODUCTION_MODULES =
      List.of("rule-engine", "injector-templates", "certs", "webhook");

  /** Every module's tests: one module's tests may use another's production code. */
  private static final List<String> TEST_MODULES =
      List.of("rule-engine", "injector-templates", "certs", "webhook", "tests");

  /**
   * What the audit lists, as {@link Finding#member()} names it. Keep it empty: an entry here is
   * dead code let in on purpose.
   */
  private static final Set<String> EXPECTED = Set.of();

  private static final String PICOCLI = "picocli.CommandLine$";
  private static final String SPRING = "org.springframework.";
  private static final String JACKSON = "com.fasterxml.jackson.annotation.";

  /**
   * Supertypes of production classes that are not on this module's class path (the webhook's
   * dependencies are kept off it), with the methods of theirs that production classes implement:
   * the audit cannot compare signatures with a type it cannot read.
   */
  private static final Map<String, Set<String>> OFF_CLASS_PATH =
      Map.ofEntries(
          entry(PICOCLI + "ITypeConverter", Set.of("convert")),
          entry(PICOCLI + "IVersionProvider", Set.of("getVersion")),
          entry(SPRING + "http.server.reactive.HttpHandler", Set.of("handle")),
          entry(SPRING + "boot.reactor.netty.NettyServerCustomizer", Set.of("apply")),
          entry(
              "ch.qos.logback.core.UnsynchronizedAppenderBase", Set.of("start", "stop", "append")),
          entry(
              "ch.qos.logback.core.spi.AppenderAttachable",
              Set.of(
                  "addAppender",
                  "iteratorForAppenders",
                  "getAppender",
                  "isAttached",
                  "detachAndStopAllAppenders",
                  "detachAppender")));

  /** Records whose only readers are their own equals and hashCode, which the audit cannot see. */
  private static final Set<String> MAP_KEYS =
      Set.of("io.meshinjector.engine.cluster.InMemoryClusterView$SharedKey");

  /** Members reached with no call in production bytecode, so not audited. */
  private static final List<EntryPoint> ENTRY_POINTS =
      List.of(
          new EntryPoint(
              "written by the compiler (lambda bodies, bridges); what a lambda does counts for the"
                  + " member that declares it",
              m -> m.getModifiers().contains(SYNTHETIC) || m.getModifiers().contains(BRIDGE)),
          new EntryPoint(
              "overrides or implements a supertype's method (equals/hashCode/toString, compareTo,"
                  + " run, call, picocli's converters and version provider, Spring's HttpHandler,"
                  + " logback's appender, fabric8's ResourceEventHandler callbacks): called"
                  + " through the supertype",
              UnusedCodeAuditTest::overridesSupertype),
          new EntryPoint(
              "main: the JVM calls it",
              m -> m.getName().equals("main") && m.getModifiers().contains(STATIC)),
          new EntryPoint(
              "an enum's values() and valueOf(String): the compiler writes them for every enum",
              m ->
                  m.getOwner().isEnum()
                      && m.getModifiers().contains(STATIC)
                      && (m.getName().equals("values") || m.getName().equals("valueOf"))),
          new EntryPoint(
              "a record's canonical constructor: the record itself, which any other constructor"
                  + " of it must call",
              UnusedCodeAuditTest::isCanonicalConstructor),
          new EntryPoint(
              "the accessors of a record that keys a map (InMemoryClusterView.SharedKey): the"
                  + " equals and hashCode javac writes read every component",
              m -> component(m).isPresent() && MAP_KEYS.contains(m.getOwner().getName())),
          new EntryPoint(
              "picocli: @Command and @Option methods, and the no-argument constructors of the"
                  + " commands, mixins and converters it instantiates",
              UnusedCodeAuditTest::picocliCalls),
          new EntryPoint(
              "Spring: @Bean methods, and the constructors of the @Configuration classes it"
                  + " instantiates",
              UnusedCodeAuditTest::springCalls),
          new EntryPoint(
              "Jackson: a mix-in's constructor (ObjectMapper.addMixIn); Jackson reads the"
                  + " mix-in's annotations and never builds one",
              m ->
                  m instanceof JavaConstructor
                      && m.getOwner().getAnnotations().stream()
                          .anyMatch(a -> a.getRawType().getName().startsWith(JACKSON))),
          new EntryPoint(
              "a private no-argument constructor: it keeps a class of static members from being"
                  + " instantiated",
              m ->
                  m instanceof JavaConstructor
                      && m.getModifiers().contains(PRIVATE)
                      && m.getRawParameterTypes().isEmpty()
                      && m.getOwner().getFields().stream()
                          .allMatch(f -> f.getModifiers().contains(STATIC))));

  /** Spring AOT's generated bean definitions: in target/classes only after the package phase. */
  private static final Pattern SPRING_AOT = Pattern.compile(".*__[\\w$]+\\.class$");

  private static final ImportOption PRODUCTION = new ImportOption.DoNotIncludeTests();

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    List<Path> dirs = new ArrayList<>();
    PRODUCTION_MODULES.forEach(m -> dirs.add(ROOT.resolve(m).resolve("target/classes")));
    TEST_MODULES.forEach(m -> dirs.add(ROOT.resolve(m).resolve("target/test-classes")));
    // without one module's classes the audit would list what only they reach
    assertThat(dirs)
        .as("compiled classes: build through the reactor (./mvnw -B -pl tests -am test)")
        .allMatch(Files::isDirectory);
    classes =
        new ClassFileImporter()
            .withImportOption(location -> !location.matches(SPRING_AOT))
            .importPaths(dirs);
  }

  @Test
  void everyProductionMemberIsReachedFromProduction() {
    List<Finding> findings = audit();
    System.out.println(
        "UnusedCodeAudit: "
            + findings.size()
            + " production members reached only from tests or by nothing");
    findings.forEach(f -> System.out.println("  " + f));
    Set<String> listed =
        findings.stream().map(Finding::member).collect(Collectors.toCollection(TreeSet::new));
    assertThat(listed)
        .as(
            "production members no production code reaches (listed above): remove them, and have"
                + " tests build values the way production does; a member a framework reaches"
                + " reflectively goes into ENTRY_POINTS, with the reason")
        .isEqualTo(new TreeSet<>(EXPECTED));
  }

  /** An entry point that excludes nothing is stale: drop it. */
  @Test
  void everyEntryPointExcludesSomething() {
    for (EntryPoint e : ENTRY_POINTS) {
      long excluded = productionMembers().filter(e.applies()).count();
      System.out.println("UnusedCodeAudit: not audited, " + excluded + ": " + e.reason());
      assertThat(excluded).as(e.reason()).isPositive();
    }
  }

  /** The overrides of a supertype the audit cannot read are known only from OFF_CLASS_PATH. */
  @Test
  void everySupertypeOffTheClassPathIsNamed() {
    Set<String> unread =
        classes.stream()
            .filter(UnusedCodeAuditTest::isProduction)
            .flatMap(UnusedCodeAuditTest::supertypes)
            .filter(t -> !t.isFullyImported())
            .map(JavaClass::getName)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(unread)
        .as("supertypes not on the class path: name their implemented methods in OFF_CLASS_PATH")
        .isEqualTo(new TreeSet<>(OFF_CLASS_PATH.keySet()));
  }

  private static List<Finding> audit() {
    List<JavaCodeUnit> audited =
        productionMembers()
            .filter(m -> ENTRY_POINTS.stream().noneMatch(e -> e.applies().test(m)))
            .toList();
    // unreached: everything production that reaches it is itself or unreached; grown until it
    // holds, so that a chain of delegating constructors is found whole
    Set<JavaCodeUnit> unreached = new HashSet<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (JavaCodeUnit m : audited) {
        if (!unreached.contains(m)
            && reachers(m)
                .filter(r -> isProduction(r.getOwner()))
                .allMatch(r -> r.equals(m) || unreached.contains(r))) {
          unreached.add(m);
          grew = true;
        }
      }
    }
    return unreached.stream()
        .map(
            m ->
                new Finding(
                    m,
                    reachers(m)
                        .map(JavaCodeUnit::getOwner)
                        .filter(c -> !isProduction(c))
                        .map(c -> topLevel(c).getSimpleName())
                        .collect(Collectors.toCollection(TreeSet::new))))
        .sorted(
            Comparator.comparing(Finding::file)
                .thenComparing(Finding::line)
                .thenComparing(Finding::member))
        .toList();
  }

  private static Stream<JavaCodeUnit> productionMembers() {
    return classes.stream()
        .filter(UnusedCodeAuditTest::isProduction)
        .flatMap(c -> Stream.concat(c.getConstructors().stream(), c.getMethods().stream()));
  }

  /** The code that calls or refers to a member, or reads the component of a record's accessor. */
  private static Stream<JavaCodeUnit> reachers(JavaCodeUnit member) {
    Stream<? extends JavaAccess<?>> componentReads =
        component(member).stream()
            .flatMap(f -> f.getAccessesToSelf().stream())
            .filter(a -> a.getAccessType() == GET && !a.getOrigin().equals(member));
    return Stream.<JavaAccess<?>>concat(member.getAccessesToSelf().stream(), componentReads)
        .map(JavaAccess::getOrigin);
  }

  /** The field of the record component whose accessor this is. */
  private static Optional<JavaField> component(JavaCodeUnit unit) {
    JavaClass owner = unit.getOwner();
    if (!owner.isRecord()
        || !(unit instanceof JavaMethod)
        || !unit.getRawParameterTypes().isEmpty()
        || unit.getModifiers().contains(STATIC)) {
      return Optional.empty();
    }
    return owner.tryGetField(unit.getName()).filter(f -> !f.getModifiers().contains(STATIC));
  }

  private static boolean isProduction(JavaClass c) {
    return c.getSource().map(s -> PRODUCTION.includes(Location.of(s.getUri()))).orElse(false);
  }

  private static JavaClass topLevel(JavaClass c) {
    return c.getEnclosingClass().map(UnusedCodeAuditTest::topLevel).orElse(c);
  }

  private static Stream<JavaClass> supertypes(JavaClass c) {
    return Stream.concat(c.getAllRawSuperclasses().stream(), c.getAllRawInterfaces().stream());
  }

  private static boolean overridesSupertype(JavaCodeUnit unit) {
    if (!(unit instanceof JavaMethod method)
        || method.getModifiers().contains(STATIC)
        || method.getModifiers().contains(PRIVATE)) {
      return false;
    }
    List<String> parameters = parameterNames(method);
    return supertypes(method.getOwner())
            .anyMatch(
                type ->
                    OFF_CLASS_PATH.getOrDefault(type.getName(), Set.of()).contains(method.getName())
                        || type.getMethods().stream()
                            .anyMatch(
                                m ->
                                    m.getName().equals(method.getName())
                                        && parameterNames(m).equals(parameters)))
        // a generic supertype's method overridden with narrower parameter types: javac writes a
        // bridge of the same name that takes the erased ones
        || method.getOwner().getMethods().stream()
            .anyMatch(
                m ->
                    m.getModifiers().contains(BRIDGE)
                        && m.getName().equals(method.getName())
                        && m.getRawParameterTypes().size() == parameters.size());
  }

  /** The constructor that sets the fields; any other constructor of a record delegates to it. */
  private static boolean isCanonicalConstructor(JavaCodeUnit unit) {
    return unit instanceof JavaConstructor constructor
        && constructor.getOwner().isRecord()
        && constructor.getConstructorCallsFromSelf().stream()
            .noneMatch(call -> call.getTargetOwner().equals(constructor.getOwner()));
  }

  private static boolean picocliCalls(JavaCodeUnit unit) {
    if (unit instanceof JavaMethod) {
      return unit.isAnnotatedWith(PICOCLI + "Command") || unit.isAnnotatedWith(PICOCLI + "Option");
    }
    JavaClass owner = unit.getOwner();
    boolean instantiated =
        owner.isAnnotatedWith(PICOCLI + "Command")
            || supertypes(owner).anyMatch(t -> t.getName().startsWith(PICOCLI))
            || owner.getFieldsWithTypeOfSelf().stream()
                .anyMatch(f -> f.isAnnotatedWith(PICOCLI + "Mixin"));
    return instantiated && unit.getRawParameterTypes().isEmpty();
  }

  private static boolean springCalls(JavaCodeUnit unit) {
    if (unit instanceof JavaMethod) {
      return unit.isAnnotatedWith(SPRING + "context.annotation.Bean");
    }
    JavaClass owner = unit.getOwner();
    return owner.isAnnotatedWith(SPRING + "context.annotation.Configuration")
        || owner.isAnnotatedWith(SPRING + "boot.SpringBootConfiguration");
  }

  private static List<String> parameterNames(JavaCodeUnit unit) {
    return unit.getRawParameterTypes().stream().map(JavaClass::getName).toList();
  }

  /** A kind of member the audit skips, why, and which members it covers. */
  private record EntryPoint(String reason, Predicate<JavaCodeUnit> applies) {}

  /**
   * A member no production code reaches.
   *
   * @param tests the test classes that reach it; none when nothing does
   */
  private record Finding(JavaCodeUnit unit, Set<String> tests) {
    /** The member without its line, e.g. {@code Decision(String, Outcome, List)}. */
    String member() {
      JavaClass owner = unit.getOwner();
      String type =
          owner.getName().substring(owner.getPackageName().length() + 1).replace('$', '.');
      String name = unit instanceof JavaConstructor ? type : type + "." + unit.getName();
      return name
          + unit.getRawParameterTypes().stream()
              .map(JavaClass::getSimpleName)
              .collect(Collectors.joining(", ", "(", ")"));
    }

    String file() {
      return unit.getSourceCodeLocation().getSourceFileName();
    }

    /** The first line of the member's code, as the bytecode has it; 0 when it does not. */
    int line() {
      return unit.getSourceCodeLocation().getLineNumber();
    }

    @Override
    public String toString() {
      return file()
          + (line() > 0 ? ":" + line() : "")
          + " "
          + member()
          + ": "
          + (tests.isEmpty() ? "by nothing" : "only from tests: " + String.join(", ", tests));
    }
  }
}
