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

  private MatchConditions() {}

  static boolean holds(String expression, Map<String, Object> object) throws Exception {
    CelAbstractSyntaxTree ast = COMPILER.compile(expression).getAst();
    return (Boolean) RUNTIME.createProgram(ast).eval(Map.of("object", object));
  }
}
