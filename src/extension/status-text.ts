// What the language status item says, as a pure function of the server state and the last
// `kubeWindows/status` of the active document (no `vscode` import: unit-tested directly).
import { NOT_KUBERNETES, type StatusParams } from '../shared/protocol';

export type ServerState = 'disabled' | 'starting' | 'running' | 'stopped' | 'failed';

export interface StatusView {
  text: string;
  detail: string;
  severity: 'information' | 'warning' | 'error';
  busy: boolean;
}

const PREFIX = 'kube-windows';

function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

function findingsPart(s: StatusParams): string {
  return s.findings === 0 ? 'no findings' : count(s.findings, 'finding');
}

function findingsDetail(s: StatusParams): string {
  if (s.findings === 0 && s.errors === 0) return 'No findings.';
  const errors = s.errors > 0 ? ` (${count(s.errors, 'error')})` : '';
  return `${s.findings === 0 ? 'No findings' : count(s.findings, 'finding')}${errors}; see the Problems panel.`;
}

export function describeStatus(state: ServerState, status: StatusParams | undefined): StatusView {
  const view = (
    text: string,
    detail: string,
    severity: StatusView['severity'] = 'information',
    busy = false,
  ): StatusView => ({
    text: `${PREFIX}: ${text}`,
    detail,
    severity,
    busy,
  });
  switch (state) {
    case 'disabled':
      return view('off', 'Turned off by the kubeWindows.enable setting.');
    case 'starting':
      return view('starting', 'The language server is starting.', 'information', true);
    case 'failed':
      return view(
        'server not running',
        'The language server failed. Click to see the log, then run "kube-windows: Restart language server".',
        'error',
      );
    case 'stopped':
      return view(
        'server stopped',
        'The language server is not running. Run "kube-windows: Restart language server" to start it.',
        'warning',
      );
    case 'running':
      break;
  }
  if (status === undefined) return view('not checked yet', 'This file has not been checked yet.');
  if (status.skipped !== undefined) {
    if (status.skipped === NOT_KUBERNETES)
      return view(NOT_KUBERNETES, 'This YAML file holds no Kubernetes objects, so no Windows checks apply.');
    // Reasons can be long ("file is 12 MiB, over the 10 MiB limit…; split it or…"): the text keeps the first clause.
    const short = status.skipped.split(';', 1)[0].trim();
    return view(`not analysed: ${short}`, `Not checked: ${status.skipped}.`);
  }
  if (status.workloads === 0) {
    const text = status.findings === 0 ? 'no workloads' : `no workloads, ${findingsPart(status)}`;
    return view(text, `No pod templates in this file. ${findingsDetail(status)}`);
  }
  const workloads = `${count(status.workloads, 'workload')} in this file`;
  if (status.windowsWorkloads === 0) {
    return view(
      `no Windows workloads, ${findingsPart(status)}`,
      `${workloads}, none for Windows. ${findingsDetail(status)}`,
    );
  }
  return view(
    `${count(status.windowsWorkloads, 'Windows workload')}, ${findingsPart(status)}`,
    `${workloads}, ${status.windowsWorkloads} of them for Windows. ${findingsDetail(status)}`,
  );
}
