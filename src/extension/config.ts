// Every kubeWindows.* setting the extension reads, typed, in one place: nothing else in
// src/extension calls workspace.getConfiguration. The defaults, types and bounds are package.json's
// (`contributes.configuration`, through shared/settings.ts), never repeated here. The language server
// reads its part of the same section itself (server/settings.ts), with the same defaults.
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { lspSettings, SECTION, type KubeWindowsSettings } from '../shared/protocol';
import { settingValue, type SettingKey } from '../shared/settings';

interface PayloadUrl {
  url: string;
  sha256: string;
}

/**
 * The kubeWindows section, shaped as its setting names are: `reboot.timeoutMinutes` is
 * `kubeWindows.reboot.timeoutMinutes`.
 */
export interface KubeWindowsConfig extends KubeWindowsSettings {
  /** A kubeconfig path; '' for kubectl's rules (KUBECONFIG, then ~/.kube/config). */
  kubeconfig: string;
  /** knownHostsFile '' for ~/.ssh/known_hosts. */
  ssh: { privateKeyPath: string; port: number; knownHostsFile: string };
  join: { payloadFolder: string; payloadUrls: Record<string, PayloadUrl> };
  reboot: { timeoutMinutes: number };
  logs: { maxMegabytes: number };
  mirrors: { concurrency: number };
  /** Where WMCO lives and which OLM catalog and channel install it ('' for the documented defaults). */
  wmco: { namespace: string; catalogSource: string; channel: string };
}

/** Reads the whole section now (cheap: VS Code keeps it in memory), so callers see a change at their next read. */
export function readConfig(): KubeWindowsConfig {
  const section = vscode.workspace.getConfiguration(SECTION);
  const get = <K extends SettingKey>(key: K) => settingValue(key, section.get(key.slice(SECTION.length + 1)));
  return {
    ...lspSettings(get),
    kubeconfig: get('kubeWindows.kubeconfig'),
    ssh: {
      privateKeyPath: localPath(get('kubeWindows.ssh.privateKeyPath')),
      port: get('kubeWindows.ssh.port'),
      knownHostsFile: localPath(get('kubeWindows.ssh.knownHostsFile')),
    },
    // The payload reader checks each URL entry (https, a SHA-256): a malformed one is reported there.
    join: {
      payloadFolder: localPath(get('kubeWindows.join.payloadFolder')),
      payloadUrls: get('kubeWindows.join.payloadUrls') as Record<string, PayloadUrl>,
    },
    reboot: { timeoutMinutes: get('kubeWindows.reboot.timeoutMinutes') },
    logs: { maxMegabytes: get('kubeWindows.logs.maxMegabytes') },
    mirrors: { concurrency: get('kubeWindows.mirrors.concurrency') },
    wmco: {
      namespace: get('kubeWindows.wmco.namespace').trim(),
      catalogSource: get('kubeWindows.wmco.catalogSource').trim(),
      channel: get('kubeWindows.wmco.channel').trim(),
    },
  };
}

/** The WMCO settings as the engine takes them (empty ones left to its defaults). */
export function wmcoSettings(config: KubeWindowsConfig = readConfig()): {
  namespace?: string;
  source?: string;
  channel?: string;
} {
  const w = config.wmco;
  return {
    ...(w.namespace ? { namespace: w.namespace } : {}),
    ...(w.catalogSource ? { source: w.catalogSource } : {}),
    ...(w.channel ? { channel: w.channel } : {}),
  };
}

/** The part of the section the language server receives (initializationOptions, workspace/configuration). */
export function serverSettings(config: KubeWindowsConfig = readConfig()): KubeWindowsSettings {
  const { enable, debounceMs, rules, flavour, kubernetesVersion, exactApi, files, helm, trace } = config;
  return { enable, debounceMs, rules, flavour, kubernetesVersion, exactApi, files, helm, trace };
}

/** Whether a configuration change touches this setting. */
export function affects(e: vscode.ConfigurationChangeEvent, key: SettingKey | typeof SECTION): boolean {
  return e.affectsConfiguration(key);
}

/** A file or folder path setting: trimmed, and a leading `~` is the home folder (as for kubeWindows.kubeconfig). */
function localPath(value: string): string {
  const p = value.trim();
  return p === '~' || p.startsWith('~/') || p.startsWith('~\\') ? homedir() + p.slice(1) : p;
}
