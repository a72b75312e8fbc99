import { existsSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import ts from "typescript";
import { capped, type StrategyDiagnostic } from "./diagnostic.js";
import type { StrategyFile } from "./limits.js";
import { SDK_DEPENDENCY, SDK_MODULE, sdkDependencyDir, sdkSource } from "./sdk-source.js";

const ROOT = "/strategy/";
const SDK_FILE = "/sdk/index.ts";
const LIB_DIR = "/lib";
const ENTRY_CHECK_FILE = "/check/entry.ts";
const ENTRY_ALIAS = "strategy:entry";

/**
 * ES2023 and nothing else: no DOM, no Node types, so `process`, `require`, `fetch` or `setTimeout`
 * in a strategy is a type error here, as it is a ReferenceError in the sandbox.
 */
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2023,
  lib: ["lib.es2023.d.ts"],
  types: [],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  isolatedModules: true,
  skipLibCheck: true,
  noFallthroughCasesInSwitch: true,
};

const LANGUAGE: ts.CreateSourceFileOptions = {
  languageVersion: ts.ScriptTarget.ES2023,
  impliedNodeFormat: ts.ModuleKind.ESNext,
};

/** TypeScript's own lib folder, where the platform's compiler is installed. */
const realLibDir = dirname(ts.getDefaultLibFilePath(OPTIONS));

// Parsing lib.es2023 and its references costs more than checking a strategy: once per process.
const shared = new Map<string, ts.SourceFile | undefined>();

function sharedFile(fileName: string): ts.SourceFile | undefined {
  if (shared.has(fileName)) return shared.get(fileName);
  let file: ts.SourceFile | undefined;
  if (fileName === SDK_FILE) file = ts.createSourceFile(fileName, sdkSource(), LANGUAGE, true);
  else if (inSdkDependency(fileName) && existsSync(fileName))
    file = ts.createSourceFile(fileName, readFileSync(fileName, "utf8"), LANGUAGE, false);
  else if (
    fileName.startsWith(`${LIB_DIR}/`) &&
    /^lib\.[\w.]+\.d\.ts$/.test(posix.basename(fileName))
  ) {
    const text = readLib(posix.basename(fileName));
    if (text !== undefined) file = ts.createSourceFile(fileName, text, LANGUAGE, false);
  }
  shared.set(fileName, file);
  return file;
}

function readLib(name: string): string | undefined {
  try {
    return readFileSync(join(realLibDir, name), "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Type-checks a strategy's files against the SDK, with a compiler host that knows only those
 * files, the SDK and TypeScript's ES2023 lib: nothing on disk is importable. Imports are checked
 * first (only the SDK and the strategy's own files, statically), then syntax, then types; the
 * entry's default export must be a strategy definition. Synchronous and CPU-bound: a server runs
 * it off its event loop.
 *
 * @example const problems = typeCheckStrategy([{ path: "strategy.ts", content }]);
 */
export function typeCheckStrategy(files: readonly StrategyFile[]): StrategyDiagnostic[] {
  const own = new Map<string, ts.SourceFile>();
  for (const f of files)
    own.set(ROOT + f.path, ts.createSourceFile(ROOT + f.path, f.content, LANGUAGE, true));

  const importProblems = [...own.values()].flatMap((sf) => importViolations(sf, own));
  if (importProblems.length > 0) return capped(importProblems);

  const entry = ROOT + files[0]!.path;
  const entryCheck = ts.createSourceFile(
    ENTRY_CHECK_FILE,
    [
      `import strategy from "${ENTRY_ALIAS}";`,
      `import type { ParamSpec, StrategyDefinition } from "${SDK_MODULE}";`,
      `export const checked: StrategyDefinition<Record<string, ParamSpec>> = strategy;`,
    ].join("\n"),
    LANGUAGE,
    true,
  );

  const host: ts.CompilerHost = {
    getSourceFile: (name) =>
      own.get(name) ?? (name === ENTRY_CHECK_FILE ? entryCheck : sharedFile(name)),
    getDefaultLibFileName: () => `${LIB_DIR}/lib.es2023.d.ts`,
    getDefaultLibLocation: () => LIB_DIR,
    writeFile: () => undefined,
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (name) =>
      own.has(name) ||
      name === SDK_FILE ||
      name === ENTRY_CHECK_FILE ||
      (inSdkDependency(name) && existsSync(name)),
    readFile: (name) => own.get(name)?.text,
    getDirectories: () => [],
    resolveModuleNameLiterals: (literals, containingFile) =>
      literals.map((literal) => {
        const target =
          literal.text === ENTRY_ALIAS && containingFile === ENTRY_CHECK_FILE
            ? entry
            : resolveImport(literal.text, containingFile, own);
        return {
          resolvedModule: target
            ? {
                resolvedFileName: target,
                extension: target.endsWith(".d.ts") ? ts.Extension.Dts : ts.Extension.Ts,
                isExternalLibraryImport: inSdkDependency(target),
              }
            : undefined,
        };
      }),
  };

  const program = ts.createProgram({
    rootNames: [...own.keys(), ENTRY_CHECK_FILE],
    options: OPTIONS,
    host,
  });
  const syntax = [...own.values()].flatMap((sf) => program.getSyntacticDiagnostics(sf));
  if (syntax.length > 0) return capped(syntax.map(toDiagnostic));
  const problems = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...[...own.values()].flatMap((sf) => program.getSemanticDiagnostics(sf)),
  ].map(toDiagnostic);
  if (problems.length === 0)
    problems.push(
      ...program
        .getSemanticDiagnostics(entryCheck)
        .map((d) => entryExportProblem(d, own.get(entry)!, files[0]!.path)),
    );
  return capped(problems);
}

/** A declaration file of the SDK's own dependency: the SDK and those files may reach it. */
function inSdkDependency(fileName: string): boolean {
  return fileName.startsWith(`${sdkDependencyDir()}/`);
}

/** The file an import names, when it is one the strategy may import; undefined otherwise. */
function resolveImport(
  specifier: string,
  containingFile: string,
  own: ReadonlyMap<string, unknown>,
): string | undefined {
  if (specifier === SDK_MODULE) return SDK_FILE;
  if (containingFile === SDK_FILE && specifier === SDK_DEPENDENCY)
    return `${sdkDependencyDir()}/index.d.ts`;
  if (inSdkDependency(containingFile) && specifier.startsWith("."))
    return posix
      .normalize(posix.join(posix.dirname(containingFile), specifier))
      .replace(/\.js$/, ".d.ts");
  if (!containingFile.startsWith(ROOT)) return undefined;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const joined = posix.normalize(posix.join(posix.dirname(containingFile), specifier));
  const base = joined.replace(/\.(ts|js)$/, "");
  const candidate = `${base}.ts`;
  return candidate.startsWith(ROOT) && own.has(candidate) ? candidate : undefined;
}

/**
 * Every way a file could reach past the SDK and its siblings, each refused where it stands: an
 * import of another module, `import()` (the sandbox loads nothing), an ambient module
 * declaration (it would make the type-check believe in a module the sandbox lacks) and a triple-
 * slash reference (it would pull in DOM or Node types).
 */
function importViolations(
  sf: ts.SourceFile,
  own: ReadonlyMap<string, unknown>,
): StrategyDiagnostic[] {
  const out: StrategyDiagnostic[] = [];
  const at = (pos: number, message: string) => out.push(placed(sf, pos, message));
  const checkSpecifier = (node: ts.Node) => {
    if (!ts.isStringLiteralLike(node))
      return at(node.getStart(sf), "an import must name its module as a string literal");
    if (resolveImport(node.text, sf.fileName, own) === undefined)
      at(
        node.getStart(sf),
        `cannot import "${node.text}": a strategy imports only "${SDK_MODULE}" and its own files (./name)`,
      );
  };
  for (const ref of [
    ...sf.referencedFiles,
    ...sf.typeReferenceDirectives,
    ...sf.libReferenceDirectives,
  ])
    at(
      ref.pos,
      `a /// <reference> directive is not allowed: a strategy sees ES2023 and "${SDK_MODULE}" only`,
    );
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) checkSpecifier(node.moduleSpecifier);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier)
      checkSpecifier(node.moduleSpecifier);
    else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference)
    )
      checkSpecifier(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      at(node.getStart(sf), "import() is not allowed: the sandbox loads no module at run time");
    else if (ts.isImportTypeNode(node))
      at(
        node.getStart(sf),
        `import("...") types are not allowed: import types from "${SDK_MODULE}"`,
      );
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name))
      at(
        node.getStart(sf),
        `declare module "${node.name.text}" is not allowed: no module but "${SDK_MODULE}" exists`,
      );
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function placed(sf: ts.SourceFile, pos: number, message: string): StrategyDiagnostic {
  const { line, character } = sf.getLineAndCharacterOfPosition(pos);
  return { file: displayName(sf.fileName), line: line + 1, column: character + 1, message };
}

function displayName(fileName: string): string {
  if (fileName.startsWith(ROOT)) return fileName.slice(ROOT.length);
  if (fileName === SDK_FILE) return SDK_MODULE;
  return fileName;
}

function toDiagnostic(d: ts.Diagnostic): StrategyDiagnostic {
  const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  if (!d.file || d.start === undefined) return { file: "(strategy)", line: 1, column: 1, message };
  return placed(d.file, d.start, message);
}

/** A problem of the entry's default export, placed at that export in the entry file. */
function entryExportProblem(
  d: ts.Diagnostic,
  entry: ts.SourceFile,
  entryPath: string,
): StrategyDiagnostic {
  const exported = entry.statements.find(
    (s) =>
      ts.isExportAssignment(s) ||
      (ts.canHaveModifiers(s) &&
        ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)),
  );
  const why = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  const message = exported
    ? `the default export is not a strategy: export default defineStrategy({...}) from "${SDK_MODULE}" (${why})`
    : `${entryPath} has no default export: the entry file must end with export default defineStrategy({...})`;
  return exported
    ? placed(entry, exported.getStart(entry), message)
    : { file: entryPath, line: 1, column: 1, message };
}
