/**
 * Lets a bundle leave out the schemas its function never uses.
 *
 * Every module of `shared/` builds its values when it loads: zod schemas and their documentation
 * (the OpenAPI examples live in infra/openapi/examples.ts, which no bundle imports). A function
 * uses a few of them, but esbuild keeps every top-level `const` whose initializer calls a
 * function, since the call might have side effects. zod marks its
 * own functions free of side effects, but esbuild honours that mark only inside the module that
 * declares the function (evanw/esbuild#4369). So the incidents-get bundle built about 550 schemas
 * when it loaded, and carried all of them.
 *
 * In `shared/`, a top-level constant's initializer only builds a value. When bundling, every call in
 * such an initializer (outside the functions it defines) is marked `/* @__PURE__ *\/`, and esbuild
 * drops the constants a bundle never reads. The calls allowed there are listed in `PURE_CALLEES`,
 * and `test/unit/pure-constants.test.ts` holds every module of `shared/` to that list. A call with
 * an effect (a client, a registration, a config) belongs in a statement of its own, which is never
 * marked.
 */
import { join, sep } from 'node:path';
import ts from 'typescript';

/**
 * What a top-level constant of `shared/` may call: zod's builders (`z.string`, `z.iso.datetime`, …;
 * not `z.config` nor its registries) and mini's `.check`, zod core's `$constructor` (a schema class, for
 * `shared/platform/zod.ts`), the documentation and text helpers of
 * `shared/platform/api/common.ts` (whose only effect, zod's metadata registry, matters to the OpenAPI
 * generator alone, which reads the sources), `documented` in the timeline,
 * `Object.keys`, and `perSandbox` and `sandboxClient` (`shared/platform/sandbox.ts`, `aws-client.ts`: their
 * only effect registers how the value they hold is reset, which a bundle that never reads the value
 * does not need either; on Lambda nothing resets). Helpers are allowed by name: adding one here is a promise that it only builds a value.
 */
export const PURE_CALLEES = [
  /^z\.(?!config$|globalRegistry\b|registry$)[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?$/,
  /\.check$/,
  /^\$constructor$/,
  /^described$/,
  /^Text$/,
  /^documented$/,
  /^Object\.keys$/,
  /^perSandbox$/,
  /^sandboxClient$/,
];

/** The calls in the initializers of `source`'s top-level constants, outside the functions they define. */
export function constantInitializerCalls(source: string, fileName: string): { callee: string; start: number; end: number }[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const calls: { callee: string; start: number; end: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node)) return;
    if (ts.isCallExpression(node) && markable(node)) {
      calls.push({ callee: node.expression.getText(file).replace(/\s+/g, ''), start: node.getStart(file), end: node.end });
    }
    ts.forEachChild(node, visit);
  };
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) if (declaration.initializer) visit(declaration.initializer);
  }
  return calls;
}

/**
 * Whether a call can be parenthesized and marked without changing what the constant holds: not a link
 * of an optional chain (`a?.b()` in parentheses would no longer short-circuit what follows it), and
 * not the left of a comma (its value is discarded, so a mark would let esbuild drop it).
 */
function markable(call: ts.CallExpression): boolean {
  if (call.flags & ts.NodeFlags.OptionalChain) return false;
  const parent = call.parent;
  return !(ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.CommaToken && parent.left === call);
}

/**
 * Whether a module's constants are marked: every module of `shared/` but the system description
 * (`shared/system.ts`), which every layer reads and whose builders (`route`, `filterIndexes`, the
 * lists derived from them) are not held to `PURE_CALLEES`; bundles keep it whole, as they always have.
 */
export function marksConstantsPure(path: string, repositoryRoot: string): boolean {
  return path.startsWith(join(repositoryRoot, 'shared') + sep) && path !== join(repositoryRoot, 'shared', 'system.ts');
}

/**
 * `source` with every call of its top-level constants' initializers marked pure. A call is
 * parenthesized too: esbuild applies the mark to the first call after it, which in `a().b()` would
 * be `a()`. No line changes, so the source maps' lines still hold; on a marked line, the columns
 * after a mark are off by its length.
 */
export function markConstantsPure(source: string, fileName: string): string {
  const inserts = constantInitializerCalls(source, fileName).flatMap(({ start, end }) => [
    { at: end, text: ')', order: 0 },
    { at: start, text: '/* @__PURE__ */ (', order: 1 },
  ]);
  // From the end backwards. Where one call ends and another starts, the opening goes in first, so
  // that the closing inserted after it at the same place lands before it.
  inserts.sort((a, b) => b.at - a.at || b.order - a.order);
  let marked = source;
  for (const { at, text } of inserts) marked = marked.slice(0, at) + text + marked.slice(at);
  return marked;
}
