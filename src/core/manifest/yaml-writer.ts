// YAML written for people to read and edit: generated objects, the values fixes insert, read-only
// views of live objects. Written through the `yaml` package's Document, which can carry comments;
// parsing for the check stays on js-yaml's event stream (manifest/document.ts), which is faster.
import type * as Yaml from 'yaml';
import type { Document, Node, ScalarTag, ToStringOptions } from 'yaml';

/**
 * The house style: 2-space indent, sequences indented under their key, block style, long strings
 * never folded, flow collections as `{a: 1}` / `[x, y]`, single quotes where quoting is needed.
 */
const STYLE: ToStringOptions = {
  indent: 2,
  indentSeq: true,
  lineWidth: 0,
  minContentWidth: 0,
  flowCollectionPadding: false,
  singleQuote: true,
};

let lib: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded on first use: it costs ~7 ms to load, which the language server, the
 * CLI and the extension would otherwise pay at start even when nothing is ever written.
 */
function yaml(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lib ??= require('yaml') as typeof Yaml;
  return lib;
}

export interface YamlWriteOptions {
  /** Comment lines above the document (without `#`), followed by a blank line. */
  comment?: string;
  /** The whole value in flow style (`{a: [1]}`), as inside an existing flow collection. */
  flow?: boolean;
}

/**
 * The value as a Document: YAML 1.1, as js-yaml here and the API server read manifests (so `yes`,
 * `on`, `0777` are quoted), and no anchors or aliases for objects that appear twice.
 */
export function yamlDocument(value: unknown, options: YamlWriteOptions = {}): Document {
  const Y = yaml();
  const doc = new Y.Document(value, {
    version: '1.1',
    aliasDuplicateObjects: false,
    customTags: (tags) => [EXPONENT_NUMBER, ...tags],
  });
  quoteGoNumbers(Y, doc);
  if (options.flow && Y.isCollection(doc.contents)) doc.contents.flow = true;
  if (options.comment) doc.commentBefore = commentLines(options.comment);
  return doc;
}

/** A Document in the house style. */
export function yamlText(doc: Document): string {
  return doc.toString(STYLE);
}

/** The value as YAML text in the house style, ending with a line break. */
export function writeYaml(value: unknown, options: YamlWriteOptions = {}): string {
  return yamlText(yamlDocument(value, options));
}

/** Puts comment lines above the key at `path` of a document's maps (when the key is there). */
export function commentAboveKey(doc: Document, path: readonly (string | number)[], comment: string): void {
  const Y = yaml();
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (!Y.isMap(parent)) return;
  const pair = parent.items.find((p) => Y.isScalar(p.key) && p.key.value === path[path.length - 1]);
  if (pair && Y.isScalar(pair.key)) pair.key.commentBefore = commentLines(comment);
}

/** `# text` reads better than `#text`; the Document writes the `#`. */
function commentLines(text: string): string {
  return text.replace(/^/gm, ' ');
}

/**
 * JavaScript writes 1e21 and 1e-7 without a dot, which YAML 1.1 (so js-yaml here) reads as a
 * string: write them `1.0e+21`, `1.0e-7`. Only for writing: it never matches text.
 */
const EXPONENT_NUMBER: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  default: true,
  identify: (v) => typeof v === 'number' && Number.isFinite(v) && String(v).includes('e'),
  test: /(?!)/,
  resolve: (s) => Number(s),
  stringify: ({ value }) => String(value).replace(/^(-?\d+)e/, '$1.0e'),
};

/**
 * The API server's YAML decoder reads integers with Go's base prefixes (`0o17`, `0X1F`, `0B11`) as
 * numbers, where YAML 1.1 sees strings: quote such strings so that they stay strings there too.
 */
const GO_PREFIXED_INT = /^[-+]?0[bBoOxX][0-9a-fA-F_]+$/;

function quoteGoNumbers(Y: typeof Yaml, doc: Document): void {
  const quote = (node: Node | null | undefined) => {
    if (Y.isScalar(node) && typeof node.value === 'string' && GO_PREFIXED_INT.test(node.value))
      node.type = 'QUOTE_SINGLE';
  };
  if (!Y.isCollection(doc.contents)) return quote(doc.contents);
  Y.visit(doc, { Scalar: (_key, node) => quote(node) });
}
