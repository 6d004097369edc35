// The kubeWindows.* settings as package.json contributes them (`contributes.configuration`): their
// names, defaults and bounds, read from package.json itself (esbuild bundles the JSON), so that each
// default is written once, where VS Code reads it too. The extension's reader (extension/config.ts)
// and the language server's (server/settings.ts) both check values with settingValue. No `vscode`.
import { contributes } from '../../package.json';

const PROPERTIES = contributes.configuration.properties;

/** The full name of a contributed setting, `kubeWindows.…`. */
export type SettingKey = keyof typeof PROPERTIES;

/** Every contributed setting, in package.json's order. */
export const SETTING_KEYS = Object.keys(PROPERTIES) as SettingKey[];

/** The default package.json contributes for the setting; a fresh copy, so callers may keep and change it. */
export function settingDefault<K extends SettingKey>(key: K): (typeof PROPERTIES)[K]['default'] {
  return copy(PROPERTIES[key].default);
}

/** The `minimum` / `maximum` package.json gives a number setting (absent bounds are infinite). */
function settingRange(key: SettingKey): { minimum: number; maximum: number } {
  const p = PROPERTIES[key] as { minimum?: number; maximum?: number };
  return { minimum: p.minimum ?? -Infinity, maximum: p.maximum ?? Infinity };
}

/**
 * A value read from a settings file, checked against the setting's JSON schema in package.json: a
 * value of the wrong type, or a string outside its `enum`, is the default; a number outside
 * `minimum` / `maximum` is brought within them; an object's entries whose value is outside
 * `additionalProperties.enum` are left out. Settings files are edited by hand, and VS Code (or
 * another editor's client) passes on whatever they hold.
 */
export function settingValue<K extends SettingKey>(key: K, raw: unknown): (typeof PROPERTIES)[K]['default'] {
  const p = PROPERTIES[key] as { type: string; enum?: string[]; additionalProperties?: { enum?: string[] } };
  const fallback = settingDefault(key);
  switch (p.type) {
    case 'boolean':
      return typeof raw === 'boolean' ? (raw as typeof fallback) : fallback;
    case 'number':
    case 'integer': {
      if (typeof raw !== 'number' || !Number.isFinite(raw) || (p.type === 'integer' && !Number.isInteger(raw)))
        return fallback;
      const { minimum, maximum } = settingRange(key);
      return Math.max(minimum, Math.min(maximum, raw)) as typeof fallback;
    }
    case 'string':
      return typeof raw === 'string' && (!p.enum || p.enum.includes(raw)) ? (raw as typeof fallback) : fallback;
    case 'array':
      return Array.isArray(raw) && raw.every((x) => typeof x === 'string') ? ([...raw] as typeof fallback) : fallback;
    case 'object':
      return typeof raw === 'object' && raw !== null && !Array.isArray(raw)
        ? (allowedEntries(p, copy(raw as Record<string, unknown>)) as typeof fallback)
        : fallback;
    default:
      return fallback;
  }
}

/** The object without the entries whose value the schema's `additionalProperties.enum` does not allow. */
function allowedEntries(
  p: { additionalProperties?: { enum?: string[] } },
  value: Record<string, unknown>,
): Record<string, unknown> {
  const allowed = p.additionalProperties?.enum;
  if (!allowed) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string' && allowed.includes(v)));
}

/**
 * A deep copy of JSON data. VS Code hands out settings objects behind read-only proxies, which structuredClone refuses.
 */
function copy<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}
