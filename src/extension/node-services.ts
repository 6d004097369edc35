// The Services group of a Windows node item: its rows (read over SSH, never asking anything while the
// tree expands: without usable credentials it shows "Connect to show services…", which asks), the
// connect itself and "Restart service". The command table is ./node-commands.ts.
import * as vscode from 'vscode';
import { userMessage } from './command-kit';
import { passphraseKey, rememberedReach, sshEndpoint } from './ssh-prompts';
import { noAddress, overSsh, target, type NodeRuntime } from './node-access';
import { REFRESH_SERVICES_COMMAND } from '../views/items/services';
import type { NodeServicesAnswer, WindowsNodeView } from '../cluster/windows-nodes';
import type { TreeNode } from '../views/cluster-item';

export const RESTART = 'Restart';
/** Services read by a connect (or a restart) are shown for this long without connecting again. */
const SERVICES_FRESH_MS = 30_000;

export const serviceKey = (context: string, node: string) => `${context}\u0000${node}`;

/** The tree's source: never asks anything (passphrase from SecretStorage only, host key must be known). */
export async function servicesFor(
  rt: NodeRuntime,
  context: string,
  view: WindowsNodeView,
): Promise<NodeServicesAnswer> {
  const cached = rt.services.get(serviceKey(context, view.name));
  if (cached && Date.now() - cached.at < SERVICES_FRESH_MS) return cached.answer;
  const reach = rememberedReach(rt.context, context, view.name);
  if (reach?.via !== 'ssh')
    return {
      connect: `How to reach ${view.name} over SSH is not known yet: connect once (user and key) to show its services.`,
    };
  const deps = await rt.deps();
  const address = deps.nodeAddress({ metadata: { name: view.name }, status: { addresses: view.addresses } });
  if (!address) return { error: `${view.name} reports no InternalIP or ExternalIP address.` };
  return deps.quietNodeServices({
    address,
    user: reach.user,
    keyPath: reach.keyPath,
    endpoint: sshEndpoint(),
    storedPassphrase: (path) => Promise.resolve(rt.context.secrets.get(passphraseKey(path))),
    host: deps.host,
    read: deps.nodeServices,
    describe: (err) => userMessage(err, context),
  });
}

/** Asks the node's Services group again (the tree reads rt.services, just filled). */
export function refreshServices(node: NodeRef): void {
  void vscode.commands.executeCommand(REFRESH_SERVICES_COMMAND, node.context, node.node);
}

type NodeRef = { context: string; node: string };

/** The node a services item (the group, its connect row, a service) belongs to, from its typed reference. */
function nodeOf(arg: unknown): NodeRef | undefined {
  const ref = (arg as Partial<TreeNode> | undefined)?.ref;
  if (!ref || !('node' in ref) || ref.node === undefined) return undefined;
  return { context: ref.context, node: ref.node };
}

/** An item standing for the node itself (what target() takes). */
const nodeItem = (n: NodeRef): Pick<TreeNode, 'ref'> => ({ ref: { kind: 'node', context: n.context, node: n.node } });

export async function connectServices(rt: NodeRuntime, arg: unknown): Promise<void> {
  const node = nodeOf(arg);
  const t = await target(rt, node && nodeItem(node), 'Connect to show services');
  if (!t || !node || noAddress(t)) return;
  const services = await overSsh(rt, t, `reading the services of ${t.name}`, (host, deps) => deps.nodeServices(host));
  if (!services) return;
  rt.services.set(serviceKey(t.context, t.name), { at: Date.now(), answer: { services } });
  refreshServices(node);
}

export async function restartService(rt: NodeRuntime, arg: unknown): Promise<void> {
  const ref = (arg as Partial<TreeNode> | undefined)?.ref;
  if (ref?.kind !== 'service') {
    void vscode.window.showInformationMessage(
      'kube-windows: run "Restart service" on a service under a Windows node in the Clusters view.',
    );
    return;
  }
  const { service, node: nodeName } = ref;
  const node = { context: ref.context, node: nodeName };
  const ok = await vscode.window.showWarningMessage(
    `Restart ${service} on ${nodeName ?? 'the node'}?`,
    {
      modal: true,
      detail:
        service === 'kubelet' || service === 'containerd'
          ? 'Running containers keep running, but the node may briefly report NotReady.'
          : 'The service stops and starts again (Restart-Service -Force).',
    },
    RESTART,
  );
  if (ok !== RESTART) return;
  const t = await target(rt, nodeItem(node), 'Restart service');
  if (!t || noAddress(t)) return;
  const r = await overSsh(rt, t, `restarting ${service} on ${t.name}`, async (host, deps) => {
    const restarted = await deps.restartNodeService(host, service);
    rt.services.set(serviceKey(t.context, t.name), {
      at: Date.now(),
      answer: { services: await deps.nodeServices(host) },
    });
    return restarted;
  });
  if (!r) return;
  rt.log.info(`restart ${service} on ${t.name}: ${r.status}`);
  void vscode.window.showInformationMessage(`kube-windows: ${service} on ${t.name} was restarted (${r.status}).`);
  refreshServices(node);
}
