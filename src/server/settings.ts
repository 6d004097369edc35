import type { Severity } from '../core/rules/types';
import type { Flavour } from '../core/rules/facts';
import { DEFAULT_SETTINGS as CONTRACT_DEFAULTS } from '../shared/protocol';
import { settingRange } from '../shared/settings';

/** The `kubeWindows` settings section, as the server uses it. */
export interface Settings {
  enable: boolean;
  debounceMs: number;
  rules: Record<string, Severity | 'off'>;
  flavour: Flavour;
  include: string[];
  exclude: string[];
  /** Values files for chart templates, over each chart's values.yaml. */
  helmValues: string[];
}

/** The contract's defaults (package.json's, through shared/settings.ts), flattened for the server. */
export const DEFAULT_SETTINGS: Settings = {
  enable: CONTRACT_DEFAULTS.enable,
  debounceMs: CONTRACT_DEFAULTS.debounceMs,
  rules: CONTRACT_DEFAULTS.rules,
  flavour: CONTRACT_DEFAULTS.flavour,
  include: CONTRACT_DEFAULTS.files.include,
  exclude: CONTRACT_DEFAULTS.files.exclude,
  helmValues: CONTRACT_DEFAULTS.helm.valuesFiles,
};

const SEVERITIES = new Set(['error', 'warning', 'info', 'off']);
const DEBOUNCE = settingRange('kubeWindows.debounceMs');

/** Reads a settings object from a client (initializationOptions or workspace/configuration), tolerating junk. */
export function normalizeSettings(raw: unknown): Settings {
  const s: Settings = { ...DEFAULT_SETTINGS, rules: {} };
  if (!raw || typeof raw !== 'object') return s;
  const r = raw as Record<string, unknown>;
  if (typeof r.enable === 'boolean') s.enable = r.enable;
  if (typeof r.debounceMs === 'number' && Number.isFinite(r.debounceMs)) s.debounceMs = Math.max(DEBOUNCE.minimum, Math.min(DEBOUNCE.maximum, r.debounceMs));
  if (r.rules && typeof r.rules === 'object') {
    for (const [id, level] of Object.entries(r.rules as Record<string, unknown>)) {
      if (typeof level === 'string' && SEVERITIES.has(level)) s.rules[id.toUpperCase()] = level as Severity | 'off';
    }
  }
  if (r.flavour === 'openshift' || r.flavour === 'kubernetes' || r.flavour === 'auto') s.flavour = r.flavour;
  const files = (r.files && typeof r.files === 'object' ? r.files : {}) as Record<string, unknown>;
  const globs = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
  s.include = globs(files.include) ?? s.include;
  s.exclude = globs(files.exclude) ?? s.exclude;
  const helm = (r.helm && typeof r.helm === 'object' ? r.helm : {}) as Record<string, unknown>;
  s.helmValues = globs(helm.valuesFiles) ?? s.helmValues;
  return s;
}
