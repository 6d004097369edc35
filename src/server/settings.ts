// The language server's settings: the kubeWindows section as a client sends it (initializationOptions,
// workspace/configuration, didChangeConfiguration), in the shape the extension reads too
// (KubeWindowsSettings), each value checked against package.json's schema by the extension's reader.
// Clients other than VS Code send whatever their users wrote: anything may arrive.
import { lspSettings, SECTION, type KubeWindowsSettings } from '../shared/protocol';
import { settingValue, type SettingKey } from '../shared/settings';

/** The settings from what a client sent; a value the schema refuses, or a missing one, is the default. */
export function readClientSettings(raw: unknown): KubeWindowsSettings {
  const settings = lspSettings(<K extends SettingKey>(key: K) =>
    settingValue(key, valueAt(raw, key.slice(SECTION.length + 1).split('.'))),
  );
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
