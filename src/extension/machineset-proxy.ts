// The proxy preflight of "Create Windows MachineSet…" and "Create in <context>" in VS Code: on a proxy-enabled
// cluster whose proxy no Machine could use, nothing is created (as `kube-windows machineset create` refuses), said
// in one error line naming the first blocking finding and its fix; every finding (errors, warnings, what waits for
// the first Machine) is written to an output channel of its own, never lost. The checks themselves are the
// engine's (src/bootstrap/proxy-preflight.ts `machineSetProxyFindings`).
import * as vscode from 'vscode';
import { channelFor } from './command-kit';
import { blocking, formatFindings, type Finding } from '../core/windows/findings';
import { counted } from '../core/plural';

export const SHOW_FINDINGS = 'Show proxy findings';

/** Where a context's proxy findings are written (one channel per context, written anew at each check). */
export function proxyChannel(
  rt: { channels: Map<string, vscode.OutputChannel> },
  context: string,
): vscode.OutputChannel {
  return channelFor(rt, `kube-windows: proxy preflight ${context}`);
}

/** A finding as one line of a message: its title and, when it has one, its fix. */
const findingText = (f: Finding): string => `${f.title.replace(/\.$/, '')}.${f.fix ? ` ${f.fix}` : ''}`;

/**
 * Writes what the preflight found (and what else refuses the creation) to the context's channel, replacing what
 * an earlier check wrote there. Nothing is written on a cluster without a proxy and with nothing refused.
 */
export function writeFindings(
  channel: vscode.OutputChannel,
  context: string,
  findings: readonly Finding[],
  refusals: readonly string[] = [],
): void {
  if (findings.length === 0 && refusals.length === 0) return;
  channel.clear();
  if (findings.length > 0) {
    channel.appendLine(`The proxy preflight of a Windows MachineSet in ${context} (${new Date().toISOString()}):`);
    channel.appendLine(formatFindings(findings));
  }
  // The engine's refusals repeat the blocking findings (title first): listed once, above.
  const others = refusals.filter((r) => !blocking(findings).some((f) => r.startsWith(f.title)));
  if (others.length > 0) {
    channel.appendLine(`Creating it is refused now: ${counted(others.length, 'reason')}:`);
    for (const r of others) channel.appendLine(`✗ ${r}`);
  }
}

/**
 * The refusal when the proxy blocks: false (and one error line, the first blocking finding and its fix, with a
 * button that shows every finding) when a Machine could not use the cluster's proxy; true otherwise.
 */
export async function proxyAllows(
  rt: { channels: Map<string, vscode.OutputChannel>; log: vscode.LogOutputChannel },
  context: string,
  findings: readonly Finding[],
  refused: string,
): Promise<boolean> {
  const channel = proxyChannel(rt, context);
  writeFindings(channel, context, findings);
  const [first, ...more] = blocking(findings);
  for (const f of findings) rt.log[f.severity === 'error' ? 'error' : 'info'](`proxy preflight ${context}: ${f.title}`);
  if (!first) return true;
  const also = more.length > 0 ? ` (${counted(more.length, 'other blocking finding')})` : '';
  const choice = await vscode.window.showErrorMessage(
    `kube-windows: ${refused}: the cluster's proxy would stall its Machines: ${findingText(first)}${also}`,
    SHOW_FINDINGS,
  );
  if (choice === SHOW_FINDINGS) channel.show(true);
  return false;
}

/** The line a draft's review message gets about the proxy: what the preflight found that does not block. */
export function proxyReviewLine(findings: readonly Finding[]): string {
  if (findings.length === 0) return '';
  const warnings = findings.filter((f) => f.severity === 'warning');
  const notes = findings.filter((f) => f.severity === 'info').length;
  const first = warnings[0] ? `: ${findingText(warnings[0])}` : '';
  return ` The cluster's proxy preflight: nothing blocks; ${counted(warnings.length, 'warning')} and ${counted(notes, 'note')}${first} ("${SHOW_FINDINGS}").`;
}
