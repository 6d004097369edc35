// Whether a document is a template to render first (YAML002) or YAML that merely carries template-
// looking text as data: `${VAR}` and `{{ … }}` inside a ConfigMap's data or a multi-line string are
// read at run time by another program (fluent-bit, Alloy, Go templates, Prometheus rules), not
// rendered before the object reaches the API server. Only a template in the document's structure,
// or in a value a renderer clearly owns (Helm's `.Values`, `include` …), makes it a template.
import { constructFromEvents, parseEvents, YAML11_SCHEMA } from 'js-yaml';
import { looksLikeKubernetesText } from './kubernetes-document';
import { isObj } from './path';

export interface TemplateOptions {
  /** False when `{{ … }}` and `${VAR}` are literal text (see LoadOptions.templateSyntax). */
  templateSyntax?: boolean;
  /** The file lives in a chart's `templates/` folder: `{{ … }}` there is Helm's whatever it stands in. */
  underTemplates?: boolean;
  maxDepth?: number;
}

interface Marker {
  kind: 'helm' | 'envsubst';
  /** Offset in the document text. */
  offset: number;
  text: string;
}

const ENVSUBST = /\$\{[A-Z_][A-Z0-9_]*(?:[:]?[-=?+][^}]*)?\}/g;

/** Actions only a chart renders: a value holding one is a Helm template, wherever it stands. */
const HELM_ACTION =
  /\.(?:Values|Release|Chart|Capabilities|Files|Template)\b|\b(?:include|toYaml|nindent|tpl|required)\b/;

/**
 * What a program evaluates at run time in a one-line value: a Go template variable (Prometheus'
 * `$labels`, `$value`) or Alertmanager's and Prometheus' dot fields. Anything else in a one-line
 * value (`{{ tag }}`, Jinja's or another generator's) is taken for a template to render first.
 */
const RUNTIME_ACTION =
  /\$[A-Za-z_]|\.(?:Labels|Annotations|Value|CommonLabels|CommonAnnotations|GroupLabels|Alerts|Status|ExternalURL)\b/;

/** Kinds whose `data` / `stringData` / `binaryData` map holds files for programs, never rendered by Kubernetes. */
const DATA_KINDS = new Set(['ConfigMap', 'Secret']);
const DATA_KEYS = new Set(['data', 'stringData', 'binaryData']);

/**
 * Helm/Go templates and envsubst files are not YAML until rendered: say so instead of guessing. Only
 * for documents that look like Kubernetes objects or live in a `templates/` folder; a document whose
 * every template-looking text is data (see dataOnly) is analysed as it is.
 */
export function templateReason(
  text: string,
  options: TemplateOptions,
): { reason: string; offset: number; length: number } | undefined {
  if (options.templateSyntax === false) return undefined;
  if (!text.includes('{{') && !text.includes('${')) return undefined;
  if (!options.underTemplates && !looksLikeKubernetesText(text)) return undefined;
  const markers = markersOf(text);
  if (markers.length === 0) return undefined;
  const data = options.underTemplates ? undefined : dataText(text, options.maxDepth);
  const structural = data ? markers.find((m) => !isData(m, data)) : markers[0];
  if (!structural) return undefined;
  return structural.kind === 'helm'
    ? {
        reason:
          'this document is a Helm/Go template ({{ … }}); it was not analysed. Render it first (helm template, or your generator) and check the output',
        offset: structural.offset,
        length: structural.text.length,
      }
    : {
        reason: `this document uses the variable ${structural.text} (envsubst/clusterctl template); it was not analysed. Substitute the variables first and check the output`,
        offset: structural.offset,
        length: structural.text.length,
      };
}

/** Every `{{ … }}` (closed on its line) and `${VAR}` outside comment lines, in text order. */
function markersOf(text: string): Marker[] {
  const out: Marker[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    if (!line.trimStart().startsWith('#')) {
      const found: Marker[] = [];
      for (let b = line.indexOf('{{'); b !== -1;) {
        const close = line.indexOf('}}', b);
        if (close === -1) break;
        found.push({ kind: 'helm', offset: offset + b, text: line.slice(b, close + 2) });
        b = line.indexOf('{{', close + 2);
      }
      for (const m of line.matchAll(ENVSUBST)) found.push({ kind: 'envsubst', offset: offset + m.index, text: m[0] });
      out.push(...found.sort((a, b) => a.offset - b.offset));
    }
    offset += line.length + 1;
  }
  return out;
}

/** The strings of a parsed document, sorted by where they may hold data; undefined when it does not parse. */
interface DataText {
  keys: string[];
  /** Values a program reads at run time: ConfigMap/Secret data, multi-line strings. */
  data: string[];
  /** Other single-line string values. */
  values: string[];
}

function dataText(text: string, maxDepth = 100): DataText | undefined {
  let value: unknown;
  try {
    const events = parseEvents(text, { maxDepth });
    value = constructFromEvents(events, { source: text, schema: YAML11_SCHEMA, maxTotalMergeKeys: 10_000 })[0];
  } catch {
    return undefined; // what does not parse as YAML is a template's structure
  }
  const out: DataText = { keys: [], data: [], values: [] };
  let budget = 100_000;
  const walk = (v: unknown, inData: boolean, depth: number) => {
    if (--budget < 0 || depth > maxDepth) return;
    if (typeof v === 'string') {
      (inData || v.includes('\n') ? out.data : out.values).push(v);
    } else if (Array.isArray(v)) {
      for (const item of v) walk(item, inData, depth + 1);
    } else if (isObj(v)) {
      const dataKind = typeof v.kind === 'string' && DATA_KINDS.has(v.kind);
      for (const [k, item] of Object.entries(v)) {
        out.keys.push(k);
        walk(item, inData || (dataKind && DATA_KEYS.has(k)), depth + 1);
      }
    }
  };
  walk(value, false, 0);
  return out;
}

/**
 * A marker is data when it stands in a data value, or in another string value as what a program
 * evaluates at run time (a Prometheus rule's `{{ $labels.instance }}`); `${VAR}` in a plain one-line
 * value is envsubst's. One in a key, or nowhere in the parsed strings (it made structure), is the template's.
 */
function isData(m: Marker, d: DataText): boolean {
  if (d.keys.some((k) => k.includes(m.text))) return false;
  if (d.data.some((s) => s.includes(m.text))) return true;
  return (
    m.kind === 'helm' &&
    !HELM_ACTION.test(m.text) &&
    RUNTIME_ACTION.test(m.text) &&
    d.values.some((s) => s.includes(m.text))
  );
}
