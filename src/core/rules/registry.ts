import type { Rule } from './types';
import { yamlRules } from './families/yaml';
import { podSecurityRules } from './families/pod-security';
import { hostProcessRules } from './families/host-process';
import { windowsOptionsRules } from './families/windows-options';
import { linuxOnlyRules } from './families/linux-only';
import { resourceRules } from './families/resources';
import { lifecycleRules } from './families/lifecycle';
import { volumeRules } from './families/volumes';
import { hostNetworkRules } from './families/host-network';
import { commandRules } from './families/commands';
import { storageRules } from './families/storage';
import { schedulingRules } from './families/scheduling';
import { imageRules } from './families/images';
import { openshiftRules } from './families/openshift';
import { proxyRules } from './families/proxy';
import { runtimeClassRules } from './families/runtime-class';
import { mirrorRules } from './families/mirrors';
import { byohRules } from './families/byoh';
import { networkRules } from './families/network';
import { machineSetRules } from './families/machinesets';
import { linterRules } from './families/linters';
import { exactApiRules } from './families/exact-api';

/** The one rule registry: every rule the engine, the CLI, the server and the README know. */
export const RULES: Rule[] = [
  ...yamlRules,
  ...podSecurityRules,
  ...hostProcessRules,
  ...windowsOptionsRules,
  ...linuxOnlyRules,
  ...resourceRules,
  ...lifecycleRules,
  ...volumeRules,
  ...hostNetworkRules,
  ...commandRules,
  ...storageRules,
  ...schedulingRules,
  ...imageRules,
  ...openshiftRules,
  ...proxyRules,
  ...runtimeClassRules,
  ...mirrorRules,
  ...byohRules,
  ...networkRules,
  ...machineSetRules,
  ...linterRules,
  ...exactApiRules,
].sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));

export const RULES_BY_ID = new Map(RULES.map((r) => [r.id, r]));

/** Where a rule's documentation lives (the README's rule table, one anchor per rule). */
const DOCS_BASE = 'https://github.com/kube-windows/kube-windows/blob/main/docs/rules.md';
export function docsUrl(id: string): string {
  return `${DOCS_BASE}#${id.toLowerCase()}`;
}
