// The wire contract between the extension (client) and the language server, as plain types and
// names. No `vscode` import here, so the server, the tests and the CLI can share it.
import type { ClusterSnapshot } from '../core/rules/facts';
import type { SeveritySetting } from '../core/rules/severity';
import { settingDefault, type SettingKey } from './settings';

export type { ClusterSnapshot };

/** The client id: also the settings section, so `kubeWindows.trace.server` is read by the client library. */
export const SECTION = 'kubeWindows';

/** server → client, once per checked document. */
export const STATUS_NOTIFICATION = 'kubeWindows/status';

/** client → server: the facts of the cluster the user works with, or null to forget them. */
export const CLUSTER_SNAPSHOT_NOTIFICATION = 'kubeWindows/clusterSnapshot';

export interface StatusParams {
  /** The document just checked (LSP URI string). */
  uri: string;
  workloads: number;
  windowsWorkloads: number;
  findings: number;
  errors: number;
  /** Set when the document was not analysed; says why (e.g. NOT_KUBERNETES, or a size limit). */
  skipped?: string;
}

/** The `skipped` reason for a YAML document that holds no Kubernetes objects. */
export const NOT_KUBERNETES = 'not a Kubernetes file';

/**
 * The `kubeWindows` settings section as `workspace.getConfiguration('kubeWindows')` nests it, which is
 * also what a `workspace/configuration` request for section `kubeWindows` returns, and what the
 * client sends as initializationOptions.
 */
export interface KubeWindowsSettings {
  enable: boolean;
  debounceMs: number;
  rules: Record<string, SeveritySetting>;
  flavour: 'auto' | 'openshift' | 'kubernetes';
  /** The Kubernetes release the rules decide by ("1.33"); '' for the cluster's, else the default. */
  kubernetesVersion: string;
  /** Also the API server's own verdict (the exact-API validator), as `check --exact-api`. */
  exactApi: boolean;
  files: { include: string[]; exclude: string[] };
  helm: { valuesFiles: string[] };
  trace: { server: 'off' | 'messages' | 'verbose' };
}

/**
 * The language server's settings, each read by `get` under its full name (a default, or a checked value from a settings
 * file).
 */
export function lspSettings(
  get: <K extends SettingKey>(key: K) => ReturnType<typeof settingDefault<K>>,
): KubeWindowsSettings {
  return {
    enable: get('kubeWindows.enable'),
    debounceMs: get('kubeWindows.debounceMs'),
    rules: get('kubeWindows.rules'),
    flavour: get('kubeWindows.flavour') as KubeWindowsSettings['flavour'],
    kubernetesVersion: get('kubeWindows.kubernetesVersion'),
    exactApi: get('kubeWindows.exactApi'),
    files: { include: get('kubeWindows.files.include'), exclude: get('kubeWindows.files.exclude') },
    helm: { valuesFiles: get('kubeWindows.helm.valuesFiles') },
    trace: { server: get('kubeWindows.trace.server') as KubeWindowsSettings['trace']['server'] },
  };
}

/** The defaults: those package.json contributes (read through shared/settings.ts, never repeated here). */
export const DEFAULT_SETTINGS: KubeWindowsSettings = lspSettings(settingDefault);

/** The documents the client syncs to the server; the server decides by content whether they hold Kubernetes objects. */
export const DOCUMENT_SELECTOR = [
  { language: 'yaml', scheme: 'file' },
  { language: 'yaml', scheme: 'untitled' },
];

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Guards the client against a malformed `kubeWindows/status` (a bug on the other side must not break the UI). */
export function isStatusParams(v: unknown): v is StatusParams {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s.uri === 'string' &&
    isCount(s.workloads) &&
    isCount(s.windowsWorkloads) &&
    isCount(s.findings) &&
    isCount(s.errors) &&
    (s.skipped === undefined || typeof s.skipped === 'string')
  );
}
