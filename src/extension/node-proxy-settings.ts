// "Show proxy settings" on a Windows node item: what `kube-windows nodes proxy` runs, over SSH or through a
// HostProcess pod pinned to the node (the way the node is reached, or the offer when SSH fails, as the terminal
// does), in a read-only document with one line of verdict. The command table is ./node-commands.ts.
import * as vscode from 'vscode';
import { firstLine, userMessage } from './command-kit';
import { USE_POD } from './ssh-prompts';
import { chooseAccess, sshRoundTrip, target, type NodeRuntime, type Target } from './node-access';
import { isHostKeyRefusalOrCancel } from '../remote/types';
import type { NodeProxyExpectation } from '../bootstrap/node-proxy';
import type { NodeProxyComparison } from '../core/proxy/node-env';

const CANCELLED = 'cancelled by the user';

/**
 * "Show proxy settings": the node's machine and per-service HTTP_PROXY/HTTPS_PROXY/NO_PROXY and trusted CA against
 * what the cluster expects (one round trip to the node), in a read-only document, with one line of verdict (drift
 * said as such, with when the node was last seen equal).
 */
export async function showProxySettings(rt: NodeRuntime, arg: unknown): Promise<void> {
  const t = await target(rt, arg, 'Show proxy settings');
  if (!t) return;
  const access = await chooseAccess(rt, t, true);
  if (!access) return;
  const deps = await rt.deps();
  let expected: NodeProxyExpectation;
  try {
    expected = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `kube-windows: reading the proxy of ${t.context}…` },
      () => deps.proxyExpectation(t.cluster.kube, t.node),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(
      `kube-windows: reading the proxy settings of ${t.name} failed: ${firstLine(await userMessage(err, t.context))}`,
    );
    return;
  }
  const comparison = access === 'pod' ? await throughPod(rt, t, expected) : await overSshOrPod(rt, t, access, expected);
  if (!comparison) return;
  const lastEqual = deps.recordProxySeen({ context: t.context, node: t.name }, comparison.equal);
  await rt.docs.show(`proxy/${t.name}.txt`, deps.nodeProxyText(t.name, expected, comparison, lastEqual));
  rt.log.info(`proxy settings of ${t.name}: ${comparison.equal ? 'equal' : 'drift'}`);
  const verdict = `kube-windows: ${deps.proxyVerdict(t.name, expected, comparison, lastEqual)}`;
  void (comparison.equal ? vscode.window.showInformationMessage(verdict) : vscode.window.showWarningMessage(verdict));
}

/**
 * Over SSH; when SSH cannot reach the node (no address, a failed connection or command), the HostProcess pod is
 * offered instead. Never after a refused host key or a cancel: that would work around a possible attack.
 */
async function overSshOrPod(
  rt: NodeRuntime,
  t: Target,
  access: { user: string; keyPath: string },
  expected: NodeProxyExpectation,
): Promise<NodeProxyComparison | undefined> {
  let why: string;
  if (!t.address) why = `${t.name} reports no InternalIP or ExternalIP address: SSH cannot reach it.`;
  else {
    const what = `reading the proxy settings of ${t.name}`;
    const outcome = await sshRoundTrip(rt, t, access, what, (host, deps) => deps.readNodeProxy(host, expected));
    if ('result' in outcome) return outcome.result;
    if ('declined' in outcome) return undefined;
    const text = firstLine(await userMessage(outcome.error, t.context));
    if (isHostKeyRefusalOrCancel(outcome.error)) {
      void vscode.window.showErrorMessage(`kube-windows: ${what} failed: ${text}`);
      return undefined;
    }
    why = `${what} over SSH failed: ${text}`;
  }
  rt.log.warn(`proxy settings of ${t.name}: ${why}`);
  const choice = await vscode.window.showWarningMessage(
    `kube-windows: ${why} Read through a HostProcess pod instead?`,
    USE_POD,
  );
  return choice === USE_POD ? throughPod(rt, t, expected) : undefined;
}

/**
 * Through a HostProcess pod pinned to the node, under a cancellable notification that says what the pod is doing
 * (its image may take minutes to pull the first time); the pod is deleted on every way out (the engine's finally).
 */
async function throughPod(
  rt: NodeRuntime,
  t: Target,
  expected: NodeProxyExpectation,
): Promise<NodeProxyComparison | undefined> {
  const deps = await rt.deps();
  // Outside the progress: whatever the cancel makes the engine throw, the abort says it was the user.
  const ctl = new AbortController();
  try {
    return await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `kube-windows: reading the proxy settings of ${t.name} through a HostProcess pod`,
        cancellable: true,
      },
      async (progress, token) => {
        const sub = token.onCancellationRequested(() => ctl.abort(new Error(CANCELLED)));
        try {
          return await deps.readProxyThroughPod({
            context: t.context,
            node: t.node,
            expected,
            signal: ctl.signal,
            onStatus: (s) => {
              rt.log.info(`proxy settings of ${t.name}: ${s}`);
              progress.report({ message: s });
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (err) {
    if (ctl.signal.aborted) {
      rt.log.info(`proxy settings of ${t.name}: cancelled`);
      void vscode.window.showInformationMessage(
        `kube-windows: reading the proxy settings of ${t.name} was cancelled; the pod is deleted and nothing changed on the node.`,
      );
      return undefined;
    }
    const text = firstLine(await userMessage(err, t.context));
    rt.log.error(`proxy settings of ${t.name} through a HostProcess pod: ${text}`);
    void vscode.window.showErrorMessage(
      `kube-windows: reading the proxy settings of ${t.name} through a HostProcess pod failed: ${text}`,
    );
    return undefined;
  }
}
