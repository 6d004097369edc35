// The language server's settings: the kubeWindows section as a client sends it (initializationOptions,
// workspace/configuration, didChangeConfiguration), in the shape the extension reads too
// (KubeWindowsSettings), each value checked against package.json's schema by the extension's reader.
// Clients other than VS Code send whatever their users wrote: anything may arrive.
import { lspSettings, SECTION, type KubeWindowsSettings } from '../shared/protocol';
import { settingValue, type SettingKey } from '../shared/settings';

/**
 * The settings from what a client sent; a value the schema refuses is the default. A value `raw` does
 * not hold is taken from `base` (what the client sent before: initializationOptions), else the default:
 * clients answer workspace/configuration with null, {} or only what their user wrote.
 */
export function readClientSettings(raw: unknown, base?: unknown): KubeWindowsSettings {
  const settings = lspSettings(<K extends SettingKey>(key: K) => {
    const path = key.slice(SECTION.length + 1).split('.');
    return settingValue(key, valueAt(raw, path) ?? valueAt(base, path));
  });
  // Rule ids are matched in upper case whatever the client wrote: the schema's id pattern is advice to
  // editors, not a filter.
  const rules = Object.fromEntries(Object.entries(settings.rules).map(([id, level]) => [id.toUpperCase(), level]));
  return { ...settings, rules };
}

/** `raw.files.include` for ['files', 'include']: own keys of plain objects only. */
function valueAt(raw: unknown, path: string[]): unknown {
  let v = raw;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, key))
      return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}
