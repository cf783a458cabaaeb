package io.meshinjector.chart;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A webhook's matchCondition evaluated as the API server does, on the request's object. */
final class MatchConditions {
  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("object", SimpleType.DYN)
          // the API server's CEL environment has the strings extension (split, join, ...)
          .addLibraries(CelExtensions.strings())
          .build();
  private static final CelRuntime RUNTIME =
      CelRuntimeFactory.standardCelRuntimeBuilder().addLibraries(CelExtensions.strings()).build();

  /** Compiled once each: the routing tables evaluate the same few expressions many times. */
  private static final Map<String, CelRuntime.Program> PROGRAMS = new ConcurrentHashMap<>();

  private MatchConditions() {}

  static boolean holds(String expression, Map<String, Object> object) throws Exception {
    CelRuntime.Program program = PROGRAMS.get(expression);
    if (program == null) {
      CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
      program = RUNTIME.createProgram(ast);
      PROGRAMS.put(expression, program);
    }
    return (Boolean) program.eval(Map.of("object", object));
  }
}
