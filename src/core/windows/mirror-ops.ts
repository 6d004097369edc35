/**
 * The PowerShell ops that put containerd `hosts.toml` trees on a Windows node (registry mirrors).
 * Built with `defineOp`, so every script has the header / literal parameters / body / KWRESULT
 * shape of host-ops.ts. Pure: no I/O.
 *
 * How a tree is replaced without ever leaving a partial one at the live path (NTFS renames a
 * directory atomically, but cannot swap two): the new tree is uploaded file by file into a
 * staging directory next to the live one, its hashes are checked against a manifest, and then two
 * renames happen in one op: live → backup, staging → live. A marker file next to the live
 * directory records the swap id and whether a previous tree existed, so that a rollback after a
 * lost connection knows exactly what to undo (and undoes nothing when the swap never happened).
 */
import { defineOp, EMIT, type HostOp } from './host-ops';

/** One file of a hosts.toml tree as read from a node: path relative to the tree root, backslashes. */
export interface RemoteTreeFile {
  path: string;
  sha256: string;
  size: number;
  /** Base64 of the bytes, for files up to the read limit; null for larger ones. */
  content: string | null;
}

export interface RemoteTree {
  exists: boolean;
  files: RemoteTreeFile[];
}

/** Sibling paths of a live tree root used by the swap (same parent: renames stay on one volume). */
export function swapPaths(
  root: string,
  id: string,
): { staging: string; backup: string; marker: string; discard: string } {
  return {
    staging: `${root}.kw-staging-${id}`,
    backup: `${root}.kw-backup`,
    marker: `${root}.kw-swap`,
    discard: `${root}.kw-discard-${id}`,
  };
}

function asTree(v: unknown): RemoteTree {
  const o = (v ?? {}) as { exists?: unknown; files?: unknown };
  // ConvertTo-Json writes a one-element array as that element on some PowerShell versions.
  const list = Array.isArray(o.files) ? o.files : o.files ? [o.files] : [];
  return {
    exists: o.exists === true,
    files: list.map((f) => {
      const x = f as Record<string, unknown>;
      return {
        path: String(x.path),
        sha256: String(x.sha256).toLowerCase(),
        size: Number(x.size),
        content: typeof x.content === 'string' ? x.content : null,
      };
    }),
  };
}

/** Every file under `root` with its SHA-256, and the bytes of those up to maxContentBytes. */
export function readHostsTree(root: string, maxContentBytes = 65536): HostOp<RemoteTree> {
  return defineOp<RemoteTree>(
    'read-hosts-tree',
    { Root: root, MaxContent: maxContentBytes },
    `
$r = @{ exists = $false; files = @() }
if (Test-Path -LiteralPath $Root -PathType Container) {
  $r.exists = $true
  $base = (Get-Item -LiteralPath $Root).FullName.TrimEnd('\\') + '\\'
  foreach ($f in @(Get-ChildItem -LiteralPath $Root -File -Recurse -Force)) {
    $item = @{ path = $f.FullName.Substring($base.Length); size = $f.Length; content = $null }
    $item.sha256 = (Get-FileHash -LiteralPath $f.FullName -Algorithm SHA256).Hash.ToLowerInvariant()
    if ($f.Length -le $MaxContent) { $item.content = [Convert]::ToBase64String([IO.File]::ReadAllBytes($f.FullName)) }
    $r.files += $item
  }
}
${EMIT}
`,
    { parse: asTree },
  );
}

// Checks a directory against the manifest ($Files, $Hashes): '' when it holds exactly those files.
const TREE_PROBLEM = `
function Get-TreeProblem([string]$Dir) {
  $base = (Get-Item -LiteralPath $Dir).FullName.TrimEnd('\\') + '\\'
  $found = @{}
  foreach ($f in @(Get-ChildItem -LiteralPath $Dir -File -Recurse -Force)) { $found[$f.FullName.Substring($base.Length).ToLowerInvariant()] = $f.FullName }
  if ($found.Count -ne $Files.Count) { return ('it holds ' + $found.Count + ' files, expected ' + $Files.Count) }
  for ($i = 0; $i -lt $Files.Count; $i++) {
    $full = $found[$Files[$i].ToLowerInvariant()]
    if (-not $full) { return ($Files[$i] + ' is missing') }
    $h = (Get-FileHash -LiteralPath $full -Algorithm SHA256).Hash.ToLowerInvariant()
    if ($h -ne $Hashes[$i]) { return ($Files[$i] + ' has SHA-256 ' + $h + ', expected ' + $Hashes[$i]) }
  }
  return ''
}`;

export interface SwapResult {
  /** The renames happened in this call. */
  swapped: boolean;
  /** The live tree already was the manifest (a repeat after a lost answer). */
  already: boolean;
  /** A previous tree existed and is now the backup. */
  previous: boolean;
}

/**
 * Verifies the staging directory against the manifest (relative paths and SHA-256, nothing more,
 * nothing less), then swaps it in: the older backup is removed, the marker written, live → backup,
 * staging → live. If the second rename fails the first is undone before the op fails. Repeating the
 * op after it succeeded (staging gone, live tree = manifest) answers already=true.
 */
export function swapHostsTree(
  root: string,
  id: string,
  manifest: readonly { path: string; sha256: string }[],
): HostOp<SwapResult> {
  const p = swapPaths(root, id);
  return defineOp<SwapResult>(
    'swap-hosts-tree',
    {
      Root: root,
      Staging: p.staging,
      Backup: p.backup,
      Marker: p.marker,
      Id: id,
      Files: manifest.map((f) => f.path),
      Hashes: manifest.map((f) => f.sha256.toLowerCase()),
    },
    `
${TREE_PROBLEM.trim()}
$r = @{ swapped = $false; already = $false; previous = $false }
if (-not (Test-Path -LiteralPath $Staging -PathType Container)) {
  if ((Test-Path -LiteralPath $Root -PathType Container) -and ((Get-TreeProblem $Root) -eq '')) { $r.already = $true; ${EMIT}; return }
  throw ('The staging directory ' + $Staging + ' is missing; ' + $Root + ' was left as it was.')
}
$problem = Get-TreeProblem $Staging
if ($problem) { throw ('The staged mirror configuration in ' + $Staging + ' does not match what was sent (' + $problem + '); ' + $Root + ' was left as it was.') }
if (Test-Path -LiteralPath $Backup) { Remove-Item -LiteralPath $Backup -Recurse -Force }
$had = Test-Path -LiteralPath $Root -PathType Container
$state = 'absent'
if ($had) { $state = 'previous' }
[IO.File]::WriteAllText($Marker, ($Id + ' ' + $state))
if ($had) { [IO.Directory]::Move($Root, $Backup) }
try {
  [IO.Directory]::Move($Staging, $Root)
} catch {
  # Never leave the live path empty: put the previous tree back, then fail.
  if ($had) { [IO.Directory]::Move($Backup, $Root) }
  Remove-Item -LiteralPath $Marker -Force
  throw
}
$r.swapped = $true
$r.previous = [bool]$had
${EMIT}
`,
    { timeoutMs: 120_000 },
  );
}

/**
 * Undoes the swap with this id, whatever point it reached: restores the backup (or removes the new
 * tree when there was none before). Does nothing when the marker names another swap or none, so it
 * is safe to call after any failure and to repeat.
 */
export function rollbackHostsTree(root: string, id: string): HostOp<{ restored: boolean }> {
  const p = swapPaths(root, id);
  return defineOp<{ restored: boolean }>(
    'rollback-hosts-tree',
    { Root: root, Backup: p.backup, Marker: p.marker, Discard: p.discard, Id: id },
    `
$r = @{ restored = $false }
if (-not (Test-Path -LiteralPath $Marker -PathType Leaf)) { ${EMIT}; return }
$words = ([IO.File]::ReadAllText($Marker)).Trim().Split(' ')
if ($words[0] -ne $Id) { ${EMIT}; return }
if ($words[1] -eq 'previous') {
  if (Test-Path -LiteralPath $Backup -PathType Container) {
    if (Test-Path -LiteralPath $Root) { [IO.Directory]::Move($Root, $Discard) }
    [IO.Directory]::Move($Backup, $Root)
    $r.restored = $true
  }
} elseif (Test-Path -LiteralPath $Root) {
  [IO.Directory]::Move($Root, $Discard)
  $r.restored = $true
}
if (Test-Path -LiteralPath $Discard) { Remove-Item -LiteralPath $Discard -Recurse -Force }
Remove-Item -LiteralPath $Marker -Force
${EMIT}
`,
    { timeoutMs: 120_000 },
  );
}

/** Removes leftover staging and discard directories of earlier runs next to `root`. */
export function clearStaging(root: string): HostOp<{ removed: string[] }> {
  return defineOp<{ removed: string[] }>(
    'clear-hosts-staging',
    { Root: root },
    `
$r = @{ removed = @() }
$parent = Split-Path -Parent $Root
$leaf = Split-Path -Leaf $Root
if (Test-Path -LiteralPath $parent -PathType Container) {
  foreach ($d in @(Get-ChildItem -LiteralPath $parent -Directory -Force | Where-Object { $_.Name.StartsWith($leaf + '.kw-staging-') -or $_.Name.StartsWith($leaf + '.kw-discard-') })) {
    Remove-Item -LiteralPath $d.FullName -Recurse -Force
    $r.removed += $d.Name
  }
}
${EMIT}
`,
    {
      parse: (v) => ({
        removed: Array.isArray((v as { removed?: unknown }).removed)
          ? (v as { removed: unknown[] }).removed.map(String)
          : [],
      }),
    },
  );
}

export interface ConfigPathResult {
  changed: boolean;
  restarted: boolean;
  /** The config_path values found before (TOML text after `=`). */
  previous: string[];
}

/**
 * Makes containerd's config.toml point its registry config_path at `dir`: nothing is written when
 * every config_path already does; otherwise the values are replaced (or the line added under the
 * registry table, or the table appended for the config's version), the file replaced through a
 * temporary file, and the service restarted so that containerd reads it.
 */
export function ensureConfigPath(configFile: string, dir: string, service = 'containerd'): HostOp<ConfigPathResult> {
  return defineOp<ConfigPathResult>(
    'ensure-config-path',
    { Config: configFile, Dir: dir, Service: service },
    `
$r = @{ changed = $false; restarted = $false; previous = @() }
if (-not (Test-Path -LiteralPath $Config -PathType Leaf)) { throw ('containerd has no configuration file at ' + $Config + '; install containerd first (kube-windows join does), or set its registry config_path to ' + $Dir + '.') }
$text = [IO.File]::ReadAllText($Config)
$quoted = '"' + $Dir.Replace('\\', '\\\\').Replace('"', '\\"') + '"'
$literal = "'" + $Dir + "'"
$pattern = '(?m)^([ \\t]*)config_path[ \\t]*=[ \\t]*(.*?)[ \\t]*\\r?$'
$found = @([regex]::Matches($text, $pattern))
$r.previous = @($found | ForEach-Object { $_.Groups[2].Value })
$stale = @($found | Where-Object { $_.Groups[2].Value -ne $quoted -and $_.Groups[2].Value -ne $literal })
if ($found.Count -gt 0 -and $stale.Count -eq 0) { ${EMIT}; return }
$nl = [Environment]::NewLine
if ($text.Contains([string][char]13 + [char]10)) { $nl = [string][char]13 + [char]10 }
if ($found.Count -gt 0) {
  $new = [regex]::Replace($text, $pattern, { param($m) $m.Groups[1].Value + 'config_path = ' + $quoted })
} else {
  $v3 = $text -match '(?m)^[ \\t]*version[ \\t]*=[ \\t]*3'
  $header = '[plugins."io.containerd.grpc.v1.cri".registry]'
  if ($v3) { $header = "[plugins.'io.containerd.cri.v1.images'.registry]" }
  $at = $text.IndexOf($header)
  if ($at -ge 0) {
    $end = $text.IndexOf($nl, $at)
    if ($end -lt 0) { $new = $text + $nl + '  config_path = ' + $quoted + $nl } else { $new = $text.Insert($end + $nl.Length, '  config_path = ' + $quoted + $nl) }
  } else {
    $new = $text.TrimEnd() + $nl + $nl + $header + $nl + '  config_path = ' + $quoted + $nl
  }
}
$temp = $Config + '.kw-config.tmp'
[IO.File]::WriteAllText($temp, $new, (New-Object Text.UTF8Encoding($false)))
Move-Item -LiteralPath $temp -Destination $Config -Force
$r.changed = $true
if (Get-Service -Name $Service -ErrorAction SilentlyContinue) {
  Restart-Service -Name $Service -Force
  $r.restarted = $true
}
${EMIT}
`,
    {
      timeoutMs: 180_000,
      parse: (v) => {
        const o = v as ConfigPathResult;
        return {
          changed: o.changed === true,
          restarted: o.restarted === true,
          previous: Array.isArray(o.previous) ? o.previous.map(String) : o.previous ? [String(o.previous)] : [],
        };
      },
    },
  );
}
