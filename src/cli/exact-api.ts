// `check --exact-api[=1.N]`: the API server's own verdict on every workload document, beside the
// rules' findings. The validator module of the release is found (shared/validator-files.ts),
// compiled and initialised once, then asked once per document; core/exact-api turns its answers
// into findings, merged with ours (one finding per cause).
import { finishFindings, type CheckOptions, type CheckResult, type DocumentPlace } from '../core/rules/checker';
import { forEachDocument, openManifest } from '../core/manifest/document';
import { withExactApi } from '../core/exact-api/findings';
import { validatedKind } from '../core/exact-api/kinds';
import type { Finding, Severity } from '../core/rules/types';
import type { SeveritySetting } from '../core/rules/severity';
import { installedValidators, givenPathProblem, validatorPlaces } from '../shared/validator-files';
import { loadValidator, type Validator } from '../shared/validator-runner';
import { UsageError } from './kit';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { load } from 'js-yaml';

const KUSTOMIZATIONS = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/**
 * Whether a file is a patch a kustomization in its folder or one above applies (`patchesStrategicMerge`,
 * `patches[].path`): a partial object, which the API server never sees as written, so it is not sent.
 */
export function kustomizePatchTest(): (absolute: string) => boolean {
  const patchesOf = new Map<string, Set<string>>();
  const patchesIn = (dir: string): Set<string> => {
    let found = patchesOf.get(dir);
    if (found) return found;
    found = new Set();
    patchesOf.set(dir, found);
    const file = KUSTOMIZATIONS.map((f) => join(dir, f)).find((f) => existsSync(f));
    if (!file) return found;
    let value: unknown;
    try {
      value = load(readFileSync(file, 'utf8'));
    } catch {
      return found;
    }
    const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const entries = [
      ...(Array.isArray(v.patchesStrategicMerge) ? v.patchesStrategicMerge : []),
      ...(Array.isArray(v.patches) ? v.patches.map((x: unknown) => (x as { path?: unknown } | null)?.path) : []),
    ];
    for (const e of entries) if (typeof e === 'string' && !e.includes('\n')) found.add(resolve(dir, e));
    return found;
  };
  return (absolute) => {
    for (let dir = dirname(absolute); ; dir = dirname(dir)) {
      if (patchesIn(dir).has(absolute)) return true;
      if (dirname(dir) === dir) return false;
    }
  };
}

/**
 * The validator of `release`, loaded; a one-line refusal naming what is installed (and where it was
 * looked for) when there is none for that release.
 */
export async function openExactApi(release: string, given: string | undefined): Promise<Validator> {
  if (given !== undefined) {
    const problem = givenPathProblem(given);
    if (problem) throw new UsageError(`--validator ${problem}`);
  }
  const places = validatorPlaces(given);
  const installed = installedValidators(places);
  const found = installed.find((v) => v.release === release);
  if (!found) {
    const have =
      installed.length > 0
        ? `installed: ${installed.map((v) => `${v.release} (${v.path})`).join(', ')}`
        : `none is installed (looked in ${places.join(', ')})`;
    throw new UsageError(
      `--exact-api: no validator for Kubernetes ${release}; ${have}. Give --exact-api=1.N for an installed release, or install kube-windows-validator-v${release}.x.wasm.br (see docs/exact-api.md)`,
    );
  }
  try {
    return await loadValidator(found.path, found.kubernetes);
  } catch (err) {
    throw new UsageError(
      `--exact-api: the validator ${found.path} could not be loaded (${err instanceof Error ? err.message : String(err)}); download it again`,
    );
  }
}

/**
 * The check of one file with the API server's verdict added: each workload document is validated,
 * and its findings become ours plus the refusals none of ours says.
 */
export function withApiVerdicts(
  text: string,
  result: CheckResult,
  validator: Validator,
  options: CheckOptions,
): CheckResult {
  const file = openManifest(text, options.load);
  if (file.skipped) return result;
  const lines = file.lines();
  const severityOf = severities(options);
  const byDocument = new Map<number, Finding[]>();
  for (const f of result.findings) byDocument.set(f.document, [...(byDocument.get(f.document) ?? []), f]);
  const findings: Finding[] = [];
  const places: DocumentPlace[] = [];
  forEachDocument(file, options.load ?? {}, (doc) => {
    places.push({ index: doc.index, span: doc.span });
    const ours = byDocument.get(doc.index) ?? [];
    byDocument.delete(doc.index);
    if (doc.status !== 'ok' || !validatedKind(doc.value)) {
      findings.push(...ours);
      return;
    }
    const answer = validator.validate(doc.text);
    findings.push(...withExactApi(ours, doc, answer, { lines, severityOf, kubernetes: validator.kubernetes }));
  });
  for (const rest of byDocument.values()) findings.push(...rest);
  return { ...result, findings: finishFindings(file, places, findings) };
}

/** The severity each API rule is reported at under --enable, --disable (and an editor's per-rule levels). */
function severities(options: CheckOptions): (id: string, fallback: Severity) => SeveritySetting {
  return (id, fallback) => {
    if (options.only && options.only.length > 0 && !options.only.includes(id)) return 'off';
    if (options.disable?.includes(id)) return 'off';
    return options.severity?.[id] ?? fallback;
  };
}
