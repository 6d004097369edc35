// How the simulated host reads a command: only the exact `powershell ... -EncodedCommand <base64>`
// form the engine sends, decoded, parsed with tree-sitter-powershell, and its op name and parameter
// literals read from the syntax tree (never by regex over the text), as a careful reader of
// src/core/windows/host-ops.ts would.
import type { Node } from 'web-tree-sitter';
import { decodeCommand, POWERSHELL_PREFIX, wrapScript } from '../../../src/core/windows/powershell';
import { parsePowerShell, parseTree } from '../powershell-parser';

export type PsLiteral = string | number | boolean | PsLiteral[];

export interface ParsedOp {
  name: string;
  params: Record<string, PsLiteral>;
  /** The op's script, unwrapped. */
  script: string;
}

/** A command the host cannot run, with what cmd.exe / PowerShell would print. */
export class CommandRejected extends Error {}

/** Wrapper nodes with one meaningful child: descended through when reading a literal. */
const WRAPPERS = new Set([
  'pipeline',
  'pipeline_chain',
  'logical_expression',
  'bitwise_expression',
  'comparison_expression',
  'additive_expression',
  'multiplicative_expression',
  'format_expression',
  'range_expression',
  'array_literal_expression',
  'unary_expression',
  'statement_list',
]);

const QUOTES = "'\u2018\u2019\u201A\u201B";
// PowerShell's tokenizer keeps the SECOND of two adjacent quote characters (any mix of the five).
const DOUBLED_QUOTE = new RegExp(`[${QUOTES}]([${QUOTES}])`, 'g');

function named(n: Node): Node[] {
  return n.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
}

class NotLiteral extends Error {}

/** The value of a literal expression; throws NotLiteral for anything that would run code. */
export function literalValue(node: Node): PsLiteral {
  let n = node;
  for (;;) {
    const kids = named(n);
    if (n.type === 'array_literal_expression' && kids.length > 1) return kids.map(literalValue);
    if (WRAPPERS.has(n.type) && kids.length === 1) {
      n = kids[0]!;
      continue;
    }
    break;
  }
  const kids = named(n);
  switch (n.type) {
    case 'string_literal': {
      const v = kids[0];
      if (!v || v.type !== 'verbatim_string_characters' || kids.length !== 1) throw new NotLiteral(n.text);
      // Inside single quotes a quote character (ASCII or U+2018..U+201B) is written twice.
      return v.text.slice(1, -1).replace(DOUBLED_QUOTE, '$1');
    }
    case 'integer_literal':
    case 'real_literal': {
      const value = Number(n.text);
      if (!Number.isFinite(value)) throw new NotLiteral(n.text);
      return value;
    }
    case 'variable':
      if (n.text.toLowerCase() === '$true') return true;
      if (n.text.toLowerCase() === '$false') return false;
      throw new NotLiteral(n.text);
    case 'parenthesized_expression':
      if (kids.length !== 1) throw new NotLiteral(n.text);
      return literalValue(kids[0]!);
    case 'expression_with_unary_operator': {
      const op = n.children[0]?.text;
      const operand = kids[kids.length - 1];
      if (!operand || kids.length !== 1) throw new NotLiteral(n.text);
      const v = literalValue(operand);
      if (op === '-' && typeof v === 'number') return -v;
      if (op === ',') return [v];
      throw new NotLiteral(n.text);
    }
    case 'array_expression': {
      // @(...) flattens one array level: @('a','b') is the array, @('a') a one-element array.
      if (kids.length === 0) return [];
      if (kids.length !== 1) throw new NotLiteral(n.text);
      const v = literalValue(kids[0]!);
      return Array.isArray(v) ? v : [v];
    }
    default:
      throw new NotLiteral(n.text);
  }
}

/** `$Name = <literal>` → [Name, value]; undefined for any other statement. */
function paramAssignment(stmt: Node): [string, PsLiteral] | undefined {
  if (stmt.type !== 'pipeline') return undefined;
  const a = named(stmt)[0];
  if (!a || a.type !== 'assignment_expression' || named(stmt).length !== 1) return undefined;
  const [left, op, right] = a.children;
  if (!left || !op || !right || op.text !== '=') return undefined;
  let target = left;
  while (named(target).length === 1 && target.type !== 'variable') target = named(target)[0]!;
  if (target.type !== 'variable' || !/^\$[A-Z][A-Za-z0-9]*$/.test(target.text)) return undefined;
  try {
    return [target.text.slice(1), literalValue(right)];
  } catch (e) {
    if (e instanceof NotLiteral) return undefined;
    throw e;
  }
}

const WRAP_HEAD = wrapScript('\u0000').split('\u0000')[0]!;
const WRAP_TAIL = wrapScript('\u0000').split('\u0000')[1]!;

/**
 * Reads a command line. Throws CommandRejected with the text the host would print on stderr for
 * anything that is not the engine's PowerShell form, does not parse, or is not a kube-windows op.
 */
export async function readCommand(command: string): Promise<ParsedOp> {
  const parts = command.split(' ');
  const prefixOk = parts.length === POWERSHELL_PREFIX.length + 1 && POWERSHELL_PREFIX.every((p, i) => parts[i] === p);
  if (!prefixOk) {
    // What cmd.exe, OpenSSH's default shell on Windows, says about a command it does not know.
    const first = command.trim().split(/\s+/)[0] ?? '';
    throw new CommandRejected(
      `'${first}' is not recognized as an internal or external command,\r\noperable program or batch file.`,
    );
  }
  let script: string;
  try {
    script = decodeCommand(parts[parts.length - 1]!);
  } catch {
    throw new CommandRejected(
      'Cannot process the command because the value specified with -EncodedCommand is not properly encoded. The value must be Base64 encoded.',
    );
  }
  const parse = await parsePowerShell(script);
  if (!parse.ok) throw new CommandRejected(`The script does not parse:\r\n${parse.errors.join('\r\n')}`);
  if (!script.startsWith(WRAP_HEAD) || !script.endsWith(WRAP_TAIL))
    throw new CommandRejected('unknown op: the script is not wrapped by wrapScript');
  const inner = script.slice(WRAP_HEAD.length, script.length - WRAP_TAIL.length);

  const root = await parseTree(script);
  const tryStmt = named(named(root)[0] ?? root).find((n) => n.type === 'try_statement');
  const block = tryStmt ? named(tryStmt).find((n) => n.type === 'statement_block') : undefined;
  const header = block?.namedChildren.find((n) => n?.type === 'comment');
  const m = header ? /^# kube-windows op: ([a-z0-9-]+)$/.exec(header.text.trim()) : null;
  if (!block || !m) throw new CommandRejected('unknown op: the script has no "# kube-windows op:" header');
  const params: Record<string, PsLiteral> = {};
  const list = named(block).find((n) => n.type === 'statement_list');
  for (const stmt of list ? named(list) : []) {
    const p = paramAssignment(stmt);
    if (!p) break; // parameters come first; the body starts at the first other statement
    params[p[0]] = p[1];
  }
  return { name: m[1]!, params, script: inner };
}
