import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  POWERSHELL_PREFIX,
  PsRaw,
  WINDOWS_COMMAND_LINE_LIMIT,
  commandLineLength,
  decodeCommand,
  encodeCommand,
  encodedLength,
  powershellCommand,
  powershellCommandLine,
  psRawTrusted,
  psScript,
  psString,
  psValue,
  wrapScript,
  type PsValue,
} from '../../src/core/windows/powershell';
import { allNodes, parsePowerShell, parseTree } from '../support/powershell-parser';
import { HOSTILE } from '../support/hostile-strings';

const QUOTES = new Set(["'", '\u2018', '\u2019', '\u201A', '\u201B']);

/** PowerShell's reading of a single-quoted literal, written from the language spec, for checking. */
function unquote(literal: string): string {
  assert.ok(QUOTES.has(literal[0]!), `starts with a quote: ${literal}`);
  let out = '';
  let i = 1;
  for (;;) {
    assert.ok(i < literal.length, `unterminated literal: ${literal}`);
    const ch = literal[i]!;
    if (QUOTES.has(ch)) {
      if (i + 1 < literal.length && QUOTES.has(literal[i + 1]!)) {
        out += ch;
        i += 2;
        continue;
      }
      assert.equal(i, literal.length - 1, `literal ends at its closing quote: ${literal}`);
      return out;
    }
    out += ch;
    i++;
  }
}

/** UTF-16LE bytes computed independently of the implementation (via TextEncoder-free DataView). */
function utf16leBase64(text: string): string {
  const view = new DataView(new ArrayBuffer(text.length * 2));
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), true);
  return Buffer.from(view.buffer).toString('base64');
}

test('psString quotes every hostile value so PowerShell reads it back exactly', () => {
  for (const value of HOSTILE) {
    const literal = psString(value);
    assert.equal(unquote(literal), value, JSON.stringify(value));
  }
  assert.equal(psString("it's"), "'it''s'");
  assert.equal(psString('a\u2019b'), "'a\u2019\u2019b'");
  assert.equal(psString('\u2018\u201A\u201B'), "'\u2018\u2018\u201A\u201A\u201B\u201B'");
  assert.equal(psString('$env:X `n "q"'), '\'$env:X `n "q"\'');
  assert.equal(psString(''), "''");
});

test('psString rejects NUL with a clear error', () => {
  assert.throws(() => psString('a\0b'), /NUL/);
  assert.throws(() => psScript`Write-Output ${'\0'}`, /NUL/);
  assert.throws(() => psString(undefined as unknown as string), /expects a string/);
});

test('psScript inserts values only as literals', () => {
  assert.equal(
    psScript`Set-Content -LiteralPath ${"C:\\a b'"} -Value ${'$x'}`,
    "Set-Content -LiteralPath 'C:\\a b''' -Value '$x'",
  );
  assert.equal(psScript`$n = ${42}; $m = ${-5}; $f = ${1.5}; $e = ${1e21}`, '$n = 42; $m = (-5); $f = 1.5; $e = 1e21');
  assert.equal(psScript`$a = ${true}; $b = ${false}`, '$a = $true; $b = $false');
  assert.equal(psScript`$l = ${['a', 1, false, ["b'"]]}`, "$l = @('a', 1, $false, @('b'''))");
  assert.equal(psScript`$l = ${[]}; $one = ${[[1, 2]]}`, '$l = @(); $one = @(,@(1, 2))');
  assert.equal(psScript`${psRawTrusted('Get-Service')} -Name ${'containerd'}`, "Get-Service -Name 'containerd'");
  assert.equal(psScript`plain`, 'plain');
  assert.equal(psValue(new PsRaw('$PSVersionTable')), '$PSVersionTable');
});

test('psScript refuses anything that is not a literal or PsRaw', () => {
  const bad: unknown[] = [
    { toString: () => 'Remove-Item x' },
    null,
    undefined,
    () => 'x',
    10n,
    Symbol('s'),
    new Date(0),
    ['ok', { nested: true }],
    NaN,
    Infinity,
  ];
  for (const value of bad) {
    assert.throws(
      () => psScript`Write-Output ${value as PsValue}`,
      (err: Error) => err instanceof Error && /psScript|cannot insert|non-finite/.test(err.message),
      String(typeof value),
    );
  }
  assert.throws(() => psScript`x ${{} as PsValue}`, /an object/);
});

test('encodeCommand is base64 of UTF-16LE; decodeCommand inverts it', () => {
  // Known values: 'a' is 61 00 -> YQA=; 'ab' is 61 00 62 00 -> YQBiAA==; 'abc' -> YQBiAGMA.
  assert.equal(encodeCommand(''), '');
  assert.equal(encodeCommand('a'), 'YQA=');
  assert.equal(encodeCommand('ab'), 'YQBiAA==');
  assert.equal(encodeCommand('abc'), 'YQBiAGMA');
  assert.equal(encodeCommand('dir'), 'ZABpAHIA');
  for (const value of [...HOSTILE, 'Write-Output hello', '😀 €', wrapScript(psScript`Write-Output ${"'x'"}`)]) {
    assert.equal(encodeCommand(value), utf16leBase64(value), JSON.stringify(value));
    assert.equal(decodeCommand(encodeCommand(value)), value, JSON.stringify(value));
  }
  let all = '';
  for (let c = 0; c < 0x10000; c += 7) all += String.fromCharCode(c);
  assert.equal(encodeCommand(all), utf16leBase64(all));
  assert.equal(decodeCommand(encodeCommand(all)), all);
  assert.throws(() => decodeCommand('abc'), /base64/);
  assert.throws(() => decodeCommand('YQ=='), /UTF-16LE/);
  assert.throws(() => decodeCommand('Y*A='), /base64/);
});

test('powershellCommand wraps the script and uses fixed arguments plus base64', () => {
  const script = psScript`Write-Output ${"a'b; Remove-Item x"}`;
  const argv = powershellCommand(script);
  assert.deepEqual(argv.slice(0, -1), [
    'powershell',
    '-NoProfile',
    '-NonInteractive',
    '-ExecutionPolicy',
    'Bypass',
    '-EncodedCommand',
  ]);
  assert.deepEqual(argv.slice(0, -1), [...POWERSHELL_PREFIX]);
  const decoded = decodeCommand(argv[argv.length - 1]!);
  assert.equal(decoded, wrapScript(script));
  assert.ok(decoded.startsWith("$ErrorActionPreference = 'Stop'; $ProgressPreference = 'SilentlyContinue'; try {"));
  assert.ok(decoded.includes(script));
  assert.ok(decoded.endsWith('} catch { [Console]::Error.WriteLine($_.Exception.Message); exit 1 }'));
  const line = powershellCommandLine(script);
  assert.equal(line, argv.join(' '));
  assert.match(
    line,
    /^powershell -NoProfile -NonInteractive -ExecutionPolicy Bypass -EncodedCommand [A-Za-z0-9+/]+=*$/,
  );
  assert.equal(encodedLength(script), argv[argv.length - 1]!.length);
  assert.equal(commandLineLength(script), line.length);
});

test('powershellCommand refuses command lines over the Windows limit', () => {
  const overhead = commandLineLength('');
  // Each script character costs 8/3 base64 characters; find the largest script that fits.
  let n = Math.floor(((WINDOWS_COMMAND_LINE_LIMIT - overhead) * 3) / 8);
  while (commandLineLength('x'.repeat(n + 1)) <= WINDOWS_COMMAND_LINE_LIMIT) n++;
  while (commandLineLength('x'.repeat(n)) > WINDOWS_COMMAND_LINE_LIMIT) n--;
  const fits = 'x'.repeat(n);
  assert.ok(powershellCommandLine(fits).length <= WINDOWS_COMMAND_LINE_LIMIT);
  assert.equal(powershellCommandLine(fits).length, commandLineLength(fits));
  assert.throws(() => powershellCommand('x'.repeat(n + 1)), /32767.*upload the script/s);
  assert.throws(() => powershellCommandLine('x'.repeat(20000)), /over the Windows limit/);
});

test('generated scripts with hostile values parse without errors', async () => {
  for (const value of HOSTILE) {
    const scripts = [
      psScript`Write-Output ${value}`,
      psScript`$v = ${value}; Set-Content -LiteralPath ${value} -Value $v -Encoding UTF8`,
      psScript`$items = ${[value, 1, true, [value]]}; foreach ($i in $items) { Write-Output $i }`,
      psScript`if (${value} -eq ${value}) { New-Item -ItemType Directory -Force -Path ${value} | Out-Null }`,
    ];
    for (const script of scripts) {
      for (const text of [script, wrapScript(script), decodeCommand(powershellCommand(script).at(-1)!)]) {
        const result = await parsePowerShell(text);
        assert.ok(result.ok, `${JSON.stringify(value)}: ${result.errors.join('; ')}\n${text}`);
      }
    }
  }
});

test('the parser flags broken scripts', async () => {
  for (const broken of [
    "try { Write-Output 'x' ",
    "Write-Output 'unterminated",
    'if ($true) { ',
    '$a = @(1, 2',
    'function { }',
  ]) {
    const result = await parsePowerShell(broken);
    assert.equal(result.ok, false, broken);
    assert.ok(result.errors.length > 0, broken);
  }
  // The unsafe way (splicing) is visibly unsafe to the same check below.
  const root = await parseTree("Write-Output 'a'; Remove-Item x; 'b'");
  assert.ok(allNodes(root).filter((n) => n.type === 'command').length > 1);
});

test('a hostile value is one string literal argument, never code', async () => {
  for (const value of HOSTILE) {
    const literal = psString(value);
    const root = await parseTree(`Write-Output ${literal}`);
    const nodes = allNodes(root);
    assert.equal(root.hasError, false, JSON.stringify(value));
    const commands = nodes.filter((n) => n.type === 'command');
    assert.equal(commands.length, 1, `one command for ${JSON.stringify(value)}`);
    assert.equal(commands[0]!.childForFieldName('command_name')?.text, 'Write-Output');
    const strings = nodes.filter((n) => n.type === 'string_literal');
    assert.equal(strings.length, 1, `one string literal for ${JSON.stringify(value)}`);
    assert.equal(strings[0]!.text, literal, JSON.stringify(value));
    // Nothing else from the value became syntax: no variables, sub-expressions, pipelines or statements.
    for (const kind of [
      'variable',
      'sub_expression',
      'array_expression',
      'script_block',
      'comment',
      'empty_statement',
      'expandable_string_literal',
    ]) {
      assert.equal(nodes.filter((n) => n.type === kind).length, 0, `${kind} in ${JSON.stringify(value)}`);
    }
    assert.equal(nodes.filter((n) => n.type === 'pipeline').length, 1, JSON.stringify(value));
    // The literal is the command's last element and ends the script.
    assert.equal(strings[0]!.endIndex, root.endIndex, JSON.stringify(value));
  }
});
