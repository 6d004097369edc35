// Parses PowerShell with tree-sitter (web-tree-sitter + the grammar's wasm build shipped by the
// tree-sitter-powershell package), to check that generated scripts are syntactically sound and
// that inserted values stay literals.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Language, Parser, type Node } from 'web-tree-sitter';

// Tests are bundled into out/test; resolve packages from the project root, not the bundle.
const projectRequire = createRequire(join(process.cwd(), 'package.json'));

let parserPromise: Promise<Parser> | undefined;

function loadParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    // Once parses warm it up, V8 re-compiles the 1 MB grammar with its optimizing tier in the
    // background and the process then takes ~6 s to exit (measured); the baseline tier is fast
    // enough for tests. Affects only this test process, and only wasm compiled from here on.
    setFlagsFromString('--liftoff-only');
    const runtimeWasm = projectRequire.resolve('web-tree-sitter/web-tree-sitter.wasm');
    await Parser.init({ locateFile: () => runtimeWasm });
    const grammarDir = dirname(projectRequire.resolve('tree-sitter-powershell/package.json'));
    const language = await Language.load(join(grammarDir, 'tree-sitter-powershell.wasm'));
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

export interface PsParseResult {
  ok: boolean;
  /** One line per ERROR or MISSING node: kind, position and text. */
  errors: string[];
}

/** Parses a script; ok when the tree has no ERROR and no MISSING node. */
export async function parsePowerShell(script: string): Promise<PsParseResult> {
  const root = await parseTree(script);
  const errors: string[] = [];
  const visit = (node: Node): void => {
    if (node.isError || node.isMissing) {
      const where = `${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
      errors.push(`${node.isMissing ? `MISSING ${node.type}` : 'ERROR'} at ${where}: ${JSON.stringify(node.text)}`);
    }
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  if (errors.length === 0 && root.hasError) errors.push('tree reports an error');
  return { ok: errors.length === 0, errors };
}

/** The root node of a script's syntax tree. */
export async function parseTree(script: string): Promise<Node> {
  const parser = await loadParser();
  const tree = parser.parse(script);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree.rootNode;
}

/** All nodes of a tree, depth first. */
export function allNodes(node: Node): Node[] {
  const out: Node[] = [node];
  for (const child of node.children) if (child) out.push(...allNodes(child));
  return out;
}
