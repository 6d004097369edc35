/**
 * Completions for Windows workloads, from the line-based cursor context (no YAML parse, so they work
 * while the document is being typed): label values, `runAsUserName` accounts, `os.name`, nodeSelector
 * keys, and pod-spec snippets for Windows scheduling and HostProcess pods.
 */
import { WINDOWS_BUILDS } from '../windows/builds';
import { positionContext, type PositionContext, type Segment } from './context';
import { BETA_OS_LABEL, BUILD_LABEL, OS_LABEL } from '../well-known';
import { DOCS } from './docs';
import { POD_SPEC_PATHS } from '../manifest/workloads';

export interface CompletionItem {
  label: string;
  detail?: string;
  /** Markdown. */
  documentation?: string;
  /** Text that replaces `replaceRange`; LSP snippet syntax when `isSnippet`. */
  insertText: string;
  isSnippet?: boolean;
  kind: 'value' | 'snippet' | 'key';
  sortText?: string;
  /** What the client should match the typed text against (the label when absent). */
  filterText?: string;
  /** File offsets the insertion replaces; on the cursor line and containing the cursor. */
  replaceRange: { start: number; end: number };
}

/** Completion items at `offset`; [] where there is nothing Windows-specific to offer. Never throws. */
export function completionsAt(text: string, offset: number): CompletionItem[] {
  try {
    const ctx = positionContext(text, offset);
    if (!ctx) return [];
    return ctx.kind === 'value' ? valueItems(ctx) : keyItems(ctx);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Values

interface Choice {
  label: string;
  /** The YAML text of the value, quoted as needed. */
  yaml: string;
  detail: string;
  documentation?: string;
}

const OS_VALUES: Choice[] = [
  { label: 'windows', yaml: 'windows', detail: 'Windows nodes' },
  { label: 'linux', yaml: 'linux', detail: 'Linux nodes' },
];

/** LTSC builds, newest first; end-of-life ones last. */
const BUILD_CHOICES: Choice[] = WINDOWS_BUILDS.filter((b) => b.ltsc)
  .sort((a, b) => Number(a.eol) - Number(b.eol) || b.build - a.build)
  .map((b) => ({
    label: b.label,
    yaml: `"${b.label}"`,
    detail: b.eol ? `${b.name} (end of life)` : b.name,
    documentation: `Windows nodes of build ${b.label} (${b.name}); images tagged ${b.tokens.map((t) => `\`${t}\``).join(' or ')}.`,
  }));

/** Accounts for `runAsUserName`; the `NT AUTHORITY` ones single-quoted, so that YAML keeps their one backslash. */
const ACCOUNT_CHOICES: Choice[] = [
  { label: 'ContainerUser', yaml: 'ContainerUser', detail: 'Unprivileged container account (Nano Server default)' },
  {
    label: 'ContainerAdministrator',
    yaml: 'ContainerAdministrator',
    detail: 'Container administrator (what Server Core runs as); refused by runAsNonRoot when named here',
  },
  {
    label: 'NT AUTHORITY\\SYSTEM',
    yaml: "'NT AUTHORITY\\SYSTEM'",
    detail: 'HostProcess: LocalSystem, full control of the host',
  },
  {
    label: 'NT AUTHORITY\\Local service',
    yaml: "'NT AUTHORITY\\Local service'",
    detail: 'HostProcess: least privileged host account (recommended)',
  },
  {
    label: 'NT AUTHORITY\\NetworkService',
    yaml: "'NT AUTHORITY\\NetworkService'",
    detail: 'HostProcess: host account with the computer\u2019s network credentials',
  },
];

function valueItems(ctx: PositionContext): CompletionItem[] {
  const choices = valueChoices(ctx.key, ctx.path);
  return choices ? choiceItems(ctx, choices) : [];
}

function valueChoices(key: string | undefined, path: Segment[]): Choice[] | undefined {
  if (key === OS_LABEL || key === BETA_OS_LABEL) return OS_VALUES;
  if (key === BUILD_LABEL) return BUILD_CHOICES;
  if (key === 'runAsUserName') return ACCOUNT_CHOICES;
  if (key === 'name' && path[path.length - 2] === 'os') return OS_VALUES;
  return undefined;
}

/**
 * A `- value` item of `values:` in a match expression whose `key:` is a Windows label (typed on a
 * dash line, so the context reads it as a key).
 */
function expressionChoices(ctx: PositionContext): Choice[] | undefined {
  const n = ctx.path.length;
  if (!ctx.seqItem || ctx.hasColon || n < 2 || typeof ctx.path[n - 1] !== 'number' || ctx.path[n - 2] !== 'values')
    return undefined;
  const expr = ctx.scopes[n - 2];
  const label = expr?.key;
  if (label === OS_LABEL || label === BETA_OS_LABEL) return OS_VALUES;
  if (label === BUILD_LABEL) return BUILD_CHOICES;
  return undefined;
}

function choiceItems(ctx: PositionContext, choices: Choice[]): CompletionItem[] {
  const quote = ctx.partial.startsWith('"') || ctx.partial.startsWith("'") ? ctx.partial[0] : '';
  return choices.map((c, i) => ({
    label: c.label,
    detail: c.detail,
    ...(c.documentation ? { documentation: c.documentation } : {}),
    insertText: (ctx.needsSpace ? ' ' : '') + c.yaml,
    kind: 'value' as const,
    sortText: String(i).padStart(2, '0'),
    filterText: quote + c.label,
    replaceRange: { ...ctx.replaceRange },
  }));
}

// ---------------------------------------------------------------------------------------------
// Keys and snippets

/** True when the key context is directly in a pod spec (a Pod's `spec`, a workload's `template.spec`). */
function isPodSpecContext(ctx: PositionContext): boolean {
  if (ctx.kind !== 'key' || !ctx.object) return false;
  const rel = POD_SPEC_PATHS[ctx.object.kind];
  if (!rel) return false;
  const base = ctx.object.path;
  if (ctx.path.length !== base.length + rel.length) return false;
  return base.every((s, i) => ctx.path[i] === s) && rel.every((s, i) => ctx.path[base.length + i] === s);
}

function keyItems(ctx: PositionContext): CompletionItem[] {
  const expression = expressionChoices(ctx);
  if (expression) return choiceItems(ctx, expression);
  if (ctx.seqItem) return [];
  if (ctx.path[ctx.path.length - 1] === 'nodeSelector') return nodeSelectorItems(ctx);
  if (isPodSpecContext(ctx) && !ctx.hasColon) return podSpecSnippets(ctx);
  return [];
}

function nodeSelectorItems(ctx: PositionContext): CompletionItem[] {
  const out: CompletionItem[] = [];
  const range = { ...ctx.replaceRange };
  if (!(OS_LABEL in ctx.siblings)) {
    out.push({
      label: `${OS_LABEL}: windows`,
      detail: 'Schedule onto Windows nodes',
      documentation:
        'The scheduler does not read `spec.os.name`: this selector is what keeps the pod on Windows nodes.',
      insertText: ctx.hasColon ? OS_LABEL : `${OS_LABEL}: windows`,
      kind: 'key',
      sortText: '00',
      filterText: OS_LABEL,
      replaceRange: range,
    });
  }
  if (!(BUILD_LABEL in ctx.siblings)) {
    const choices = BUILD_CHOICES.filter((c) => !c.detail.includes('end of life')).map((c) => escapeChoice(c.label));
    out.push({
      label: BUILD_LABEL,
      detail: 'Pin a Windows Server build',
      documentation: `Keeps the pod on Windows nodes whose build runs its images (${BUILD_CHOICES.filter(
        (c) => !c.detail.includes('end of life'),
      )
        .map((c) => `\`${c.label}\` ${c.detail}`)
        .join(', ')}).`,
      insertText: ctx.hasColon ? BUILD_LABEL : `${BUILD_LABEL}: "\${1|${choices.join(',')}|}"`,
      isSnippet: !ctx.hasColon,
      kind: 'key',
      sortText: '01',
      filterText: BUILD_LABEL,
      replaceRange: range,
    });
  }
  return out;
}

/** Escapes text for a snippet outside placeholders. */
function escapeSnippet(s: string): string {
  return s.replace(/[\\$}]/g, (c) => `\\${c}`);
}

/** Escapes one option of a snippet choice (`${1|a,b|}`). */
function escapeChoice(s: string): string {
  return s.replace(/[\\$}|,]/g, (c) => `\\${c}`);
}

function podSpecSnippets(ctx: PositionContext): CompletionItem[] {
  const unit = ' '.repeat(ctx.indentUnit);
  const dash = ctx.sequenceStyle === 'indentless' ? '- ' : `${unit}- `;
  const cont = ctx.sequenceStyle === 'indentless' ? '  ' : `${unit}  `;
  const has = (k: string) => k in ctx.siblings;
  /** Joins block lines, each after the first indented like the cursor line. */
  const block = (lines: string[]) => lines.join(ctx.newline + ' '.repeat(ctx.indent));
  const range = { ...ctx.replaceRange };
  const out: CompletionItem[] = [];

  if (!has('os')) {
    out.push({
      label: 'os: windows',
      detail: 'Declare a Windows pod (spec.os.name)',
      documentation:
        'The API server validates the pod as a Windows pod and the kubelet runs it only on Windows nodes. The scheduler does not read it: add Windows scheduling too.',
      insertText: block(['os:', `${unit}name: windows`]),
      kind: 'snippet',
      sortText: '10',
      filterText: 'os',
      replaceRange: range,
    });
  }

  const scheduling: string[] = [];
  if (!has('nodeSelector')) scheduling.push('nodeSelector:', `${unit}${OS_LABEL}: windows`);
  if (!has('tolerations'))
    scheduling.push('tolerations:', `${dash}key: os`, `${cont}operator: Exists`, `${cont}effect: NoSchedule`);
  if (scheduling.length > 0) {
    out.push({
      label: 'Windows scheduling',
      detail: has('nodeSelector')
        ? 'Toleration for the os taint of Windows nodes'
        : has('tolerations')
          ? 'nodeSelector kubernetes.io/os: windows'
          : 'nodeSelector kubernetes.io/os: windows + toleration for the os taint',
      documentation:
        'Selects Windows nodes and tolerates the `os` taint they usually carry, whatever its value (`os=windows` upstream, `os=Windows` on OpenShift).\n\n' +
        `[Learn more](${DOCS.userGuide})`,
      insertText: block(scheduling),
      kind: 'snippet',
      sortText: '11',
      filterText: scheduling[0].replace(':', ''),
      replaceRange: range,
    });
  }

  if (!has('securityContext')) {
    const accounts = ["'NT AUTHORITY\\Local service'", "'NT AUTHORITY\\NetworkService'", "'NT AUTHORITY\\SYSTEM'"].map(
      escapeChoice,
    );
    const lines = [
      'securityContext:',
      `${unit}windowsOptions:`,
      `${unit}${unit}hostProcess: true`,
      `${unit}${unit}runAsUserName: \${1|${accounts.join(',')}|}`,
    ];
    if (!has('hostNetwork')) lines.push('hostNetwork: true');
    out.push({
      label: 'HostProcess pod',
      detail: 'windowsOptions.hostProcess + runAsUserName + hostNetwork',
      documentation:
        'Runs every container of the pod as a process on the Windows host. Needs `hostNetwork: true` and a privileged namespace; prefer `NT AUTHORITY\\Local service`.\n\n' +
        `[Learn more](${DOCS.hostProcess})`,
      insertText: block(lines.map((l, i) => (i === 3 ? l : escapeSnippet(l)))),
      isSnippet: true,
      kind: 'snippet',
      sortText: '12',
      filterText: 'hostProcess securityContext',
      replaceRange: range,
    });
  }
  return out;
}

/**
 * The text a snippet inserts when every placeholder keeps its default and every choice its first
 * option; for clients without snippet support, and for tests.
 */
export function snippetToText(snippet: string): string {
  let i = 0;
  const read = (stop: string): string => {
    let out = '';
    while (i < snippet.length) {
      const c = snippet[i];
      if (c === '\\' && i + 1 < snippet.length) {
        out += snippet[i + 1];
        i += 2;
        continue;
      }
      if (stop.includes(c)) return out;
      if (c === '$') {
        const m = /^\$(\d+)/.exec(snippet.slice(i));
        if (m) {
          i += m[0].length;
          continue;
        }
        const open = /^\$\{(\d+)([:|}])/.exec(snippet.slice(i));
        if (open) {
          i += open[0].length;
          if (open[2] === '}') continue;
          if (open[2] === ':') {
            out += read('}');
            i++; // }
            continue;
          }
          const first = read(',|');
          while (i < snippet.length && snippet[i] !== '|') {
            i++;
            read(',|');
          }
          i += 2; // |}
          out += first;
          continue;
        }
      }
      out += c;
      i++;
    }
    return out;
  };
  return read('');
}
