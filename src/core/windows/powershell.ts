/**
 * Building PowerShell commands from parameters, for running on Windows hosts over SSH as
 * `powershell -NoProfile -NonInteractive -EncodedCommand <UTF-16LE base64>`.
 *
 * No user value is ever spliced into script text: values enter scripts only as single-quoted
 * string literals (or numbers / booleans / arrays of those), through `psString` and `psScript`.
 * Pure: no I/O, no Buffer.
 */

/** Windows' limit on a process command line (CreateProcess), in UTF-16 code units. */
export const WINDOWS_COMMAND_LINE_LIMIT = 32767;

/** The fixed part of every command line `powershellCommand` builds, before the base64 payload. */
export const POWERSHELL_PREFIX: readonly string[] = Object.freeze([
  'powershell',
  '-NoProfile',
  '-NonInteractive',
  '-ExecutionPolicy',
  'Bypass',
  '-EncodedCommand',
]);

/**
 * Characters PowerShell's tokenizer treats as a single quote inside a single-quoted string:
 * ASCII `'` and the Unicode quotes U+2018, U+2019, U+201A, U+201B. Each must be doubled.
 */
const SINGLE_QUOTES = /['\u2018\u2019\u201A\u201B]/g;

/**
 * A PowerShell single-quoted string literal that represents `value` exactly. Inside single
 * quotes PowerShell expands nothing (`$`, backtick and `"` are literal); a quote character is
 * written by doubling it. NUL cannot be passed through a Windows command line and is rejected.
 */
export function psString(value: string): string {
  if (typeof value !== 'string') {
    throw new TypeError(`psString expects a string, got ${describe(value)}`);
  }
  if (value.includes('\0')) {
    throw new Error('psString: the value contains a NUL character (U+0000), which a PowerShell command cannot carry');
  }
  return `'${value.replace(SINGLE_QUOTES, (q) => q + q)}'`;
}

/**
 * A trusted script fragment, inserted verbatim by `psScript`. Only for text written in our own
 * source code, never for anything derived from user input, files, or a cluster.
 */
export class PsRaw {
  constructor(readonly trustedScript: string) {
    if (typeof trustedScript !== 'string') {
      throw new TypeError(`PsRaw expects a string, got ${describe(trustedScript)}`);
    }
  }
}

/** Marks a trusted script fragment for verbatim insertion by `psScript`. */
export function psRawTrusted(trustedScript: string): PsRaw {
  return new PsRaw(trustedScript);
}

export type PsValue = string | number | boolean | PsRaw | readonly PsValue[];

/** One value as PowerShell source: a literal, an array expression, or a trusted fragment. */
export function psValue(value: PsValue): string {
  if (value instanceof PsRaw) return value.trustedScript;
  switch (typeof value) {
    case 'string':
      return psString(value);
    case 'number':
      return psNumber(value);
    case 'boolean':
      return value ? '$true' : '$false';
    default:
      break;
  }
  if (Array.isArray(value)) {
    // `@(a, b)`: the comma operator keeps a nested `@(…)` as one element, except when it is
    // the only element, which `@()` would flatten; the unary comma keeps it whole there.
    const items = (value as readonly PsValue[]).map((item) => psValue(item));
    if (items.length === 1 && Array.isArray(value[0])) return `@(,${items[0]})`;
    return `@(${items.join(', ')})`;
  }
  throw new TypeError(`psScript: cannot insert ${describe(value)}; pass a string, number, boolean, array, or PsRaw`);
}

function psNumber(value: number): string {
  if (!Number.isFinite(value)) {
    throw new RangeError(`psScript: cannot insert the non-finite number ${String(value)}`);
  }
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
    // Negative numbers in parentheses so `-5` can never read as a parameter name in command mode.
    return value < 0 ? `(${value})` : String(value);
  }
  // Non-integers: JS prints e.g. 1.5 or 1e+21; PowerShell parses both as [double].
  const text = String(value).replace('e+', 'e');
  return value < 0 ? `(${text})` : text;
}

/**
 * Tagged template producing PowerShell source where every interpolated value becomes a literal:
 *
 *     psScript`Set-Content -LiteralPath ${path} -Value ${text}`
 *
 * Strings are quoted with `psString`, numbers written as numbers, booleans as `$true`/`$false`,
 * arrays as `@(…)`, `PsRaw` verbatim. Anything else (objects, null, undefined, functions,
 * bigint, symbols) throws.
 */
export function psScript(template: TemplateStringsArray, ...values: PsValue[]): string {
  let out = template[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += psValue(values[i] as PsValue) + (template[i + 1] ?? '');
  }
  return out;
}

/** Wraps a script so that any error stops it and gives exit code 1 with the message on stderr. */
export function wrapScript(script: string): string {
  return (
    "$ErrorActionPreference = 'Stop'; $ProgressPreference = 'SilentlyContinue'; try {\n" +
    script +
    '\n} catch { [Console]::Error.WriteLine($_.Exception.Message); exit 1 }'
  );
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 of the UTF-16LE encoding of `script` (the format of `-EncodedCommand`). */
export function encodeCommand(script: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < script.length; i++) {
    const unit = script.charCodeAt(i); // UTF-16 code units, surrogates included, as Windows expects
    bytes.push(unit & 0xff, unit >>> 8);
  }
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] as number;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    const n = (b0 << 16) | ((b1 ?? 0) << 8) | (b2 ?? 0);
    out += BASE64[(n >>> 18) & 63]! + BASE64[(n >>> 12) & 63]!;
    out += b1 === undefined ? '=' : BASE64[(n >>> 6) & 63]!;
    out += b2 === undefined ? '=' : BASE64[n & 63]!;
  }
  return out;
}

/** Inverse of `encodeCommand`, for tests and dry runs. Throws on malformed input. */
export function decodeCommand(b64: string): string {
  const clean = b64.replace(/\s+/g, '');
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
    throw new Error('decodeCommand: not valid base64');
  }
  const body = clean.replace(/=+$/, '');
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of body) {
    acc = (acc << 6) | BASE64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >>> bits) & 0xff);
    }
  }
  if (bytes.length % 2 !== 0) {
    throw new Error('decodeCommand: odd number of bytes, not UTF-16LE');
  }
  let out = '';
  for (let i = 0; i < bytes.length; i += 2) {
    out += String.fromCharCode((bytes[i] as number) | ((bytes[i + 1] as number) << 8));
  }
  return out;
}

/** Length of the base64 payload for `script` once wrapped (as `powershellCommand` sends it). */
export function encodedLength(script: string): number {
  return Math.ceil((wrapScript(script).length * 2) / 3) * 4;
}

/** Length of the full command line `powershellCommandLine(script)` would produce. */
export function commandLineLength(script: string): number {
  return POWERSHELL_PREFIX.join(' ').length + 1 + encodedLength(script);
}

/**
 * The argv to run `script` (wrapped by `wrapScript`) with Windows PowerShell. Throws when the
 * command line would exceed Windows' 32 767-character limit.
 */
export function powershellCommand(script: string): string[] {
  const length = commandLineLength(script);
  if (length > WINDOWS_COMMAND_LINE_LIMIT) {
    throw new Error(
      `The PowerShell command line would be ${length} characters, over the Windows limit of ` +
        `${WINDOWS_COMMAND_LINE_LIMIT}; upload the script as a .ps1 file and run it with -File instead.`,
    );
  }
  return [...POWERSHELL_PREFIX, encodeCommand(wrapScript(script))];
}

/** `powershellCommand(script)` joined by spaces: safe, every part is fixed text or base64. */
export function powershellCommandLine(script: string): string {
  return powershellCommand(script).join(' ');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    return name && name !== 'Object' ? `an object (${name})` : 'an object';
  }
  return typeof value;
}
