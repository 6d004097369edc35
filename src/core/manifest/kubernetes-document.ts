// Which YAML documents are Kubernetes objects. A repository holds much YAML that is not (GitHub
// workflows and action.yml, docker-compose, Ansible, OpenAPI, pre-commit, mkdocs, a chart's
// Chart.yaml and values.yaml …): `check` skips it quietly and counts it, and `${{ … }}` or `${VAR}`
// in it is that tool's syntax, never a template to render first. Decided once, here, for the CLI,
// the editor and the loader's template detection.
import { isObj } from './path';
import { looksLikeInstallConfig } from './workloads';

/**
 * - `kubernetes`: an object (`kind`, with or without its `apiVersion` yet; List and Kustomization
 *   included), an OpenShift install-config, a template (or YAML with a syntax error) that names one
 *   in its top-level keys or lives in a `templates/` folder, or a document too complex to read;
 * - `not-kubernetes`: YAML of another tool; nothing to check;
 * - `empty`: no value (comments, `---`, `null`).
 */
export type DocumentClass = 'kubernetes' | 'not-kubernetes' | 'empty';

export interface DocumentSource {
  /** The document's text (a template or a document that does not parse is judged by it). */
  text: string;
  /** Whether the text was read: `ok` and `empty` have a value; the others are judged by text. */
  status: 'ok' | 'empty' | 'syntax-error' | 'template' | 'too-complex';
  value: unknown;
}

export interface DocumentPlace {
  /** The file lives in a `templates/` folder: a template there renders to Kubernetes objects. */
  underTemplates?: boolean;
}

/**
 * What a document is. Its `kind` decides (every Kubernetes object has one; an `apiVersion` alone is
 * Chart.yaml, or an object whose kind is not typed yet, with nothing to check either way). A document
 * that was not read (a template, a syntax error) is Kubernetes when its top-level keys say so.
 */
export function classifyDocument(doc: DocumentSource, place: DocumentPlace = {}): DocumentClass {
  if (doc.status === 'empty') return 'empty';
  // Too large or too deep to read (an alias bomb?): what it holds is unknown, and it is reported.
  if (doc.status === 'too-complex') return 'kubernetes';
  if (doc.status !== 'ok')
    return place.underTemplates || looksLikeKubernetesText(doc.text) ? 'kubernetes' : 'not-kubernetes';
  const value = doc.value;
  if (value === null || value === undefined) return 'empty';
  if (!isObj(value)) return 'not-kubernetes'; // a top-level list (Ansible) or a scalar
  if (typeof value.kind === 'string' && value.kind !== '') return 'kubernetes';
  return looksLikeInstallConfig(value) ? 'kubernetes' : 'not-kubernetes';
}

// A top-level `apiVersion:` or `kind:` key, plain or quoted, at the start of a line (not indented:
// a workflow's `with: {kind: …}` is not an object header).
const HEADER_KEY = /^(?:apiVersion|kind|"apiVersion"|"kind"|'apiVersion'|'kind')[ \t]*:/m;
// The same in a document written in flow style: `{apiVersion: v1, kind: Pod, …}`.
const FLOW_HEADER = /^\s*\{[^]*?["']?(?:apiVersion|kind)["']?[ \t]*:/;

/** Text whose top-level keys name a Kubernetes object, read without parsing (templates, broken YAML). */
export function looksLikeKubernetesText(text: string): boolean {
  return HEADER_KEY.test(text) || FLOW_HEADER.test(text);
}

/** A path with a `templates` folder (a Helm chart's, or a chart being written without Chart.yaml yet). */
export function isUnderTemplates(path: string): boolean {
  return /(?:^|[\\/])templates[\\/]/.test(path);
}
