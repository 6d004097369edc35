// Deterministic random YAML for property and fuzz tests: a seeded PRNG, a generator of documents in
// every style the manifest model must position (block and flow, `- key:` items, quoted and block
// scalars, comments, anchors, aliases, merge keys, tags, CRLF, BOM), and text mutations.
import { load, YAML11_SCHEMA } from 'js-yaml';

/** mulberry32: small, fast, good enough for tests, and the same on every machine. */
export class Rng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/**
 * The seed for a test run: `KW_SEED=123` reproduces a reported failure, `KW_SEED=random` explores
 * new inputs, else `fallback` (fixed, so that `npm test` gates on the same inputs every run).
 */
export function seedFromEnv(fallback: number): number {
  const s = process.env.KW_SEED;
  if (s === 'random') return Date.now() >>> 0;
  return s !== undefined && s !== '' && Number.isFinite(Number(s)) ? Number(s) >>> 0 : fallback;
}

/** Runs `fn` and, when it throws, rethrows with the seed and a way to reproduce prepended. */
export function withSeed<T>(seed: number, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    e.message = `[seed ${seed}; rerun with KW_SEED=${seed}] ${what}: ${e.message}`;
    throw e;
  }
}

export const load11 = (text: string): unknown => load(text, { schema: YAML11_SCHEMA });

// ---------------------------------------------------------------------------------------------
// Vocabulary

const WORDS = [
  'web',
  'iis',
  'nano',
  'server',
  'core',
  'windows',
  'linux',
  'app',
  'frontend',
  'data',
  'log',
  'mcr.microsoft.com/windows/nanoserver:ltsc2022',
  'C:/inetpub',
  '10.0.20348',
  'ltsc2022',
  'x86_64',
  'a-b',
  'v1.2',
  'ContainerUser',
  'NT AUTHORITY',
];
/** Plain scalars YAML 1.1 reads as something other than a string: resolution must not confuse positions. */
const SPECIAL = [
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  'true',
  'False',
  '~',
  'null',
  '0x1F',
  '010',
  '1_000',
  '1.5e3',
  '-3',
  '+7',
  '.inf',
  '.NaN',
  '12',
  '0',
  '3.25',
  '1:20',
];
const KEYS = [
  'name',
  'image',
  'args',
  'command',
  'env',
  'value',
  'labels',
  'spec',
  'metadata',
  'ports',
  'containerPort',
  'kind',
  'apiVersion',
  'data',
  'os',
  'nodeSelector',
  'tolerations',
  'key',
  'operator',
  'effect',
  'securityContext',
  'windowsOptions',
  'runAsUserName',
  'hostProcess',
  'resources',
  'limits',
  'cpu',
  'memory',
  'kubernetes.io/os',
  'app.kubernetes.io/name',
];
const ODD_KEYS = [
  'y',
  'on',
  '12',
  '~',
  'with space',
  'colon:inside',
  'dash-key',
  'ünïcode',
  '"quoted"',
  "'single'",
  'tab\there',
];

export interface GenOptions {
  /** Anchors, aliases and merge keys (default true). */
  anchors?: boolean;
  /** Comments before, after and between entries (default true). */
  comments?: boolean;
  /** Flow collections (default true). */
  flow?: boolean;
  /** Block scalars `|` / `>` (default true). */
  blockScalars?: boolean;
  /** Keys YAML 1.1 resolves to non-strings (`y`, `on`, `12`, `~`) (default true). */
  oddKeys?: boolean;
  maxDepth?: number;
}

/** Writes one random YAML document (no `---`), ending with a newline. */
export function genDocument(r: Rng, options: GenOptions = {}): string {
  const g = new Gen(r, {
    anchors: options.anchors ?? true,
    comments: options.comments ?? true,
    flow: options.flow ?? true,
    blockScalars: options.blockScalars ?? true,
    oddKeys: options.oddKeys ?? true,
    maxDepth: options.maxDepth ?? 4,
  });
  const lead = g.comment() ? `# ${r.pick(WORDS)} header\n` : '';
  return `${lead}${g.blockMap(0, 0)}\n`;
}

/** A multi-document stream of random documents with the stream-level features: markers, `...`, directives, comment-only documents. */
export function genStream(r: Rng, count: number, options: GenOptions = {}): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    const doc = genDocument(r, options);
    const pre = r.int(10);
    if (i === 0 && pre === 0) out += doc;
    else if (pre === 1) out += `${out === '' || out.endsWith('...\n') ? '' : '...\n'}%YAML 1.1\n---\n${doc}`;
    else if (pre === 2) out += `--- # document ${i}\n${doc}`;
    else if (pre === 3) out += `--- {inline: ${i}, flow: [a, b]}\n`;
    else if (pre === 4) out += `---\n# only a comment here\n`;
    else out += `---\n${doc}`;
    if (r.chance(0.15)) out += '...\n';
  }
  return out;
}

export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

interface Opts {
  anchors: boolean;
  comments: boolean;
  flow: boolean;
  blockScalars: boolean;
  oddKeys: boolean;
  maxDepth: number;
}

class Gen {
  private anchorCount = 0;
  /** Anchors defined so far, with whether they name a map (usable in `<<`). */
  private defined: { name: string; map: boolean }[] = [];
  constructor(
    private readonly r: Rng,
    private readonly o: Opts,
  ) {}

  comment(): boolean {
    return this.o.comments && this.r.chance(0.2);
  }

  private trailing(): string {
    return this.comment() ? `  # ${this.r.pick(WORDS)}` : '';
  }

  /** Maybe an anchor (`&aN `) for the node about to be written; aliases may use it once `defined`. */
  private anchor(): string {
    if (!this.o.anchors || !this.r.chance(0.15)) return '';
    return `&a${++this.anchorCount} `;
  }

  /** Makes an anchor usable by later aliases: only after its node is complete (no recursion). */
  private define<T extends string>(anchor: string, isMap: boolean, text: T): T {
    if (anchor) this.defined.push({ name: anchor.trim().slice(1), map: isMap });
    return text;
  }

  private keys(n: number, plainOnly = false): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    while (out.length < n) {
      let k = this.r.pick(KEYS);
      if (this.o.oddKeys && !plainOnly && this.r.chance(0.12)) k = this.r.pick(ODD_KEYS);
      let text = k;
      if (k.includes(' ') || k.includes(':') || k.includes('\t') || k.startsWith('"') || k.startsWith("'")) {
        text = k.startsWith('"') || k.startsWith("'") ? k : JSON.stringify(k);
      } else if (this.r.chance(0.1)) text = `'${k}'`;
      else if (this.r.chance(0.05)) text = `!!str ${k}`;
      // Keys must stay distinct after YAML 1.1 resolution (`y` and `true` are the same key).
      let resolved: string;
      try {
        resolved = Object.keys(load11(`${text}: 1`) as object)[0];
      } catch {
        continue;
      }
      if (seen.has(resolved) || resolved === '<<') continue;
      seen.add(resolved);
      out.push(text);
    }
    return out;
  }

  /** A block map whose first line the caller places at column `col`; later lines are indented to `col`. */
  blockMap(col: number, depth: number): string {
    const n = 1 + this.r.int(depth === 0 ? 5 : 4);
    const pad = ' '.repeat(col);
    const entries: string[] = [];
    const maps = this.defined.filter((d) => d.map);
    const merge = this.o.anchors && maps.length > 0 && this.r.chance(0.2);
    if (merge) entries.push(`<<: *${this.r.pick(maps).name}${this.trailing()}`);
    // js-yaml rejects a key that resolves to a boolean next to a merged one: keep merging maps plain.
    for (const key of this.keys(n, merge)) entries.push(`${key}:${this.afterKey(col, depth)}`);
    let out = '';
    entries.forEach((e, i) => {
      if (i > 0) {
        out += `\n`;
        if (this.comment()) out += `${this.r.chance(0.3) ? '' : pad}# between entries\n`;
        out += pad;
      }
      out += e;
    });
    return out;
  }

  /** A block sequence whose first `-` the caller places at column `col`. */
  blockSeq(col: number, depth: number): string {
    const n = 1 + this.r.int(3);
    const pad = ' '.repeat(col);
    const items: string[] = [];
    for (let i = 0; i < n; i++) {
      const item = this.item(col + 2, depth);
      items.push(item === '' ? '-' : `- ${item}`);
    }
    return items.join(`\n${this.comment() ? `${pad}# between items\n` : ''}${pad}`);
  }

  /** What follows `key:`: ` scalar`, ` flow`, or a line break and a nested block. */
  private afterKey(col: number, depth: number): string {
    const r = this.r;
    const roll = r.int(10);
    if (depth < this.o.maxDepth && roll < 3) {
      const a = this.anchor();
      if (this.o.flow && r.chance(0.25))
        return this.define(a, true, ` ${a}${this.flowMap(depth + 1)}${this.trailing()}`);
      return this.define(
        a,
        true,
        ` ${a}`.trimEnd() + `${this.trailing()}\n${' '.repeat(col + 2)}${this.blockMap(col + 2, depth + 1)}`,
      );
    }
    if (depth < this.o.maxDepth && roll < 5) {
      const a = this.anchor();
      if (this.o.flow && r.chance(0.25))
        return this.define(a, false, ` ${a}${this.flowSeq(depth + 1)}${this.trailing()}`);
      const indent = r.chance(0.5) ? col + 2 : col;
      return this.define(
        a,
        false,
        ` ${a}`.trimEnd() + `${this.trailing()}\n${' '.repeat(indent)}${this.blockSeq(indent, depth + 1)}`,
      );
    }
    if (roll === 5 && r.chance(0.5))
      return r.pick(['', ' ~', ' null', ' {}', ' []', ' !!str', ' !!null']) + this.trailing();
    if (roll === 6 && this.o.anchors && this.defined.length > 0 && r.chance(0.5))
      return ` *${r.pick(this.defined).name}${this.trailing()}`;
    if (roll === 7 && this.o.blockScalars) {
      const a = this.anchor();
      return this.define(a, false, ` ${a}${this.blockScalar(col + 2)}`);
    }
    const a = this.anchor();
    return this.define(a, false, ` ${a}${this.scalar()}${this.trailing()}`);
  }

  /** A sequence item after `- ` at column `col`. */
  private item(col: number, depth: number): string {
    const r = this.r;
    const roll = r.int(10);
    if (depth < this.o.maxDepth && roll < 3) return this.blockMap(col, depth + 1); // `- key: value`
    if (depth < this.o.maxDepth && roll === 3) return this.blockSeq(col, depth + 1); // `- - item`
    if (depth < this.o.maxDepth && roll === 4 && this.o.flow)
      return r.chance(0.5) ? this.flowMap(depth + 1) : this.flowSeq(depth + 1);
    if (roll === 5 && r.chance(0.3)) return '';
    if (roll === 6 && this.o.blockScalars) return this.blockScalar(col + 2);
    if (roll === 7 && this.o.anchors && this.defined.length > 0 && r.chance(0.5))
      return `*${r.pick(this.defined).name}`;
    const a = this.anchor();
    return this.define(a, false, `${a}${this.scalar()}${this.trailing()}`);
  }

  private flowMap(depth: number): string {
    const n = this.r.int(4);
    const keys = this.keys(n);
    const parts = keys.map((k) => {
      if (this.r.chance(0.1)) return k; // `{a, b}`: keys with null values
      return `${k}: ${depth < this.o.maxDepth && this.r.chance(0.2) ? this.flowSeq(depth + 1) : this.flowScalar()}`;
    });
    const sep = this.r.chance(0.2) ? ',' : ', ';
    return `{${this.r.chance(0.3) ? ' ' : ''}${parts.join(sep)}${parts.length > 0 && this.r.chance(0.1) ? ',' : ''}${this.r.chance(0.3) ? ' ' : ''}}`;
  }

  private flowSeq(depth: number): string {
    const n = this.r.int(4);
    const parts: string[] = [];
    for (let i = 0; i < n; i++)
      parts.push(depth < this.o.maxDepth && this.r.chance(0.2) ? this.flowMap(depth + 1) : this.flowScalar());
    return `[${parts.join(', ')}]`;
  }

  private flowScalar(): string {
    const r = this.r;
    const roll = r.int(6);
    if (roll === 0) return `'${r.pick(WORDS).replace(/'/g, "''")}, it''s'`;
    if (roll === 1) return JSON.stringify(`${r.pick(WORDS)}\t[x]`);
    if (roll === 2) return r.pick(SPECIAL);
    return r.pick(WORDS).replace(/[:\s]/g, '-');
  }

  private scalar(): string {
    const r = this.r;
    const word = r.pick(WORDS);
    switch (r.int(9)) {
      case 0:
        return `'${word.replace(/'/g, "''")} it''s'`;
      case 1:
        return JSON.stringify(`${word} "q" \\ é\ttab`);
      case 2:
        return r.pick(SPECIAL);
      case 3:
        return `!!str ${r.pick(SPECIAL)}`;
      case 4:
        return `${word} and\tinner tab`;
      case 5:
        return `"${word}: with colon # not a comment"`;
      default:
        return word;
    }
  }

  /** `|` / `>` with a chomping indicator, header comment sometimes, body at column `col`. */
  private blockScalar(col: number): string {
    const r = this.r;
    const header = `${r.pick(['|', '>'])}${r.pick(['', '-', '+'])}${this.comment() ? ' # block' : ''}`;
    const pad = ' '.repeat(col);
    const lines: string[] = [];
    const n = 1 + r.int(3);
    for (let i = 0; i < n; i++)
      lines.push(`${pad}${r.pick(WORDS)} ${r.chance(0.2) ? '# not a comment' : r.pick(WORDS)}`);
    if (r.chance(0.3)) lines.splice(1, 0, '');
    if (r.chance(0.3)) lines.push(`${pad}  more indented`);
    let out = `${header}\n${lines.join('\n')}`;
    if (r.chance(0.3)) out += '\n';
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Kubernetes-like documents

const IMAGES = [
  'mcr.microsoft.com/windows/nanoserver:ltsc2022',
  'mcr.microsoft.com/windows/servercore:ltsc2019',
  'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022',
  'nginx:1.27',
  'mcr.microsoft.com/oss/kubernetes/pause:3.9',
];

/** A workload with a random mix of Windows settings, Linux-only fields and mistakes the rules know. */
export function genWorkload(r: Rng, i: number): string {
  const kind = r.pick(['Pod', 'Deployment', 'DaemonSet', 'StatefulSet', 'Job', 'CronJob']);
  const podLines: string[] = [];
  if (r.chance(0.7)) podLines.push('nodeSelector:', `  kubernetes.io/os: ${r.pick(['windows', 'windows', 'linux'])}`);
  if (r.chance(0.4)) podLines.push('os:', `  name: ${r.pick(['windows', 'Windows', 'linux'])}`);
  if (r.chance(0.3)) podLines.push(`hostPID: ${r.pick(['true', 'false'])}`);
  if (r.chance(0.2)) podLines.push(`hostNetwork: true`);
  if (r.chance(0.3))
    podLines.push(
      'securityContext:',
      `  ${r.pick(['fsGroup: 2000', 'runAsUser: 1000', 'seLinuxOptions: {level: "s0"}', 'windowsOptions:\n    runAsUserName: ContainerUser', 'windowsOptions:\n    hostProcess: true\n    runAsUserName: "NT AUTHORITY\\\\SYSTEM"'])}`,
    );
  if (r.chance(0.3)) podLines.push('tolerations:', '- key: os', '  operator: Exists', '  effect: NoSchedule');
  if (r.chance(0.2)) podLines.push(`runtimeClassName: ${r.pick(['windows-2022', 'runhcs-wcow-process'])}`);
  podLines.push('containers:');
  const n = 1 + r.int(2);
  for (let c = 0; c < n; c++) {
    podLines.push(`- name: c${c}`, `  image: ${r.pick(IMAGES)}`);
    if (r.chance(0.4))
      podLines.push(
        '  securityContext:',
        `    ${r.pick(['privileged: true', 'privileged: false', 'runAsUser: 1000', 'readOnlyRootFilesystem: true', 'capabilities: {add: [NET_ADMIN]}', 'allowPrivilegeEscalation: false', 'windowsOptions: {runAsUserName: ContainerAdministrator}'])}`,
      );
    if (r.chance(0.3))
      podLines.push(
        '  resources:',
        '    limits:',
        `      cpu: "${r.pick(['1', '500m'])}"`,
        `      memory: ${r.pick(['1Gi', '800Mi'])}`,
      );
    if (r.chance(0.2))
      podLines.push('  volumeMounts:', '  - name: data', `    mountPath: ${r.pick(['C:\\data', '/data', 'C:/data'])}`);
    if (r.chance(0.2)) podLines.push('  command: ["powershell", "-Command", "Start-Sleep 3600"]');
  }
  if (r.chance(0.2))
    podLines.push('volumes:', '- name: data', `  hostPath: {path: "${r.pick(['C:\\\\data', '/var/log'])}"}`);
  const podSpec = podLines.join('\n');
  const indentBy = (text: string, n: number) => text.replace(/^/gm, ' '.repeat(n));
  const meta = `metadata:\n  name: w${i}\n  labels: {app: w${i}}`;
  switch (kind) {
    case 'Pod':
      return `apiVersion: v1\nkind: Pod\n${meta}\nspec:\n${indentBy(podSpec, 2)}\n`;
    case 'Job':
      return `apiVersion: batch/v1\nkind: Job\n${meta}\nspec:\n  template:\n    spec:\n${indentBy(podSpec, 6)}\n`;
    case 'CronJob':
      return `apiVersion: batch/v1\nkind: CronJob\n${meta}\nspec:\n  schedule: "*/5 * * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n${indentBy(podSpec, 10)}\n`;
    default:
      return `apiVersion: apps/v1\nkind: ${kind}\n${meta}\nspec:\n  selector:\n    matchLabels: {app: w${i}}\n  template:\n    metadata:\n      labels: {app: w${i}}\n    spec:\n${indentBy(podSpec, 6)}\n`;
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations

const INSERTS = [
  '{',
  '[',
  ':',
  '&',
  '*',
  '!',
  '|',
  '>',
  "'",
  '"',
  '#',
  '\t',
  '---',
  '...',
  '- ',
  ': ',
  '&a ',
  '*a',
  '!!binary ',
  '%YAML 1.1\n',
  '\n',
  '  ',
  '{{ .Values.x }}',
  '${VAR}',
  '\ufeff',
  '\r\n',
  '<<: *a\n',
  '? ',
];

/** One random edit of the text: delete, duplicate or swap characters or lines, or insert YAML syntax. */
export function mutate(r: Rng, text: string): string {
  if (text.length === 0) return r.pick(INSERTS);
  const pos = r.int(text.length + 1);
  const lines = text.split('\n');
  switch (r.int(9)) {
    case 0: {
      const n = 1 + r.int(8);
      return text.slice(0, pos) + text.slice(pos + n);
    }
    case 1: {
      const n = 1 + r.int(16);
      return text.slice(0, pos) + text.slice(pos, pos + n) + text.slice(pos);
    }
    case 2: {
      const a = r.int(text.length);
      const b = r.int(text.length);
      const chars = [...text];
      [chars[a], chars[b]] = [chars[b], chars[a]];
      return chars.join('');
    }
    case 3: {
      const l = r.int(lines.length);
      lines.splice(l, 1);
      return lines.join('\n');
    }
    case 4: {
      const l = r.int(lines.length);
      lines.splice(l, 0, lines[l]);
      return lines.join('\n');
    }
    case 5: {
      const a = r.int(lines.length);
      const b = r.int(lines.length);
      [lines[a], lines[b]] = [lines[b], lines[a]];
      return lines.join('\n');
    }
    case 6: {
      // Re-indent a line by one or two spaces, or with a tab.
      const l = r.int(lines.length);
      lines[l] = r.pick([' ', '  ', '\t']) + lines[l];
      return lines.join('\n');
    }
    default:
      return text.slice(0, pos) + r.pick(INSERTS) + text.slice(pos);
  }
}
