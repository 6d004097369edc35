// `npm run sandbox`: a SANDBOX to try kube-windows without a cluster, as an ordinary user (no root:
// every simulated host listens on an unprivileged port of its own loopback address). The API
// emulator with a small mixed OpenShift cluster (Machine API on AWS, a few failing pods), a
// simulated Windows host behind every seeded Windows node and two more to join (through the WMCO
// stand-in), the OpenShift cluster proxy-enabled (a proxy double on loopback as its cluster-wide proxy, one
// node's proxy settings drifted), a second context with a kubeadm cluster and a host to join to it, and code-server with
// the packaged extension, a copy of examples/ open and settings that point at all this. Test doubles
// only: this file is bundled into out/sandbox (git-ignored) and never enters the .vsix. Ctrl-C stops
// everything. SANDBOX_DIR (state), SANDBOX_PORT (code-server), SANDBOX_SSH_PORT, SANDBOX_HOSTS.
import { join, resolve } from 'node:path';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { SANDBOX_TRUSTED_CA, startWorld, type SandboxInfo, type World } from '../support/sandbox-world';
import { ROOT, startCodeServer, type CodeServer } from '../e2e/harness';

const CONTEXT = 'kube-windows-sandbox';
const KUBEADM_CONTEXT = 'kubeadm-sandbox';

function banner(info: SandboxInfo, world: World): string {
  const bar = '='.repeat(78);
  const ssh = (a: string) => `${a}:${info.sshPort}`;
  return `
${bar}
  kube-windows SANDBOX: simulated clusters and hosts, nothing here is real
${bar}
  VS Code (code-server):  ${info.url}
  Workspace:              a copy of examples/ (${info.workspace})
  Kubeconfig:             ${info.kubeconfig}  (set as kubeWindows.kubeconfig)
  SSH:                    user ${info.user}, key ${info.keyPath}, port ${info.sshPort}
                          known_hosts ${info.knownHosts}
                          (set as kubeWindows.ssh.privateKeyPath, .port and .knownHostsFile)

  Context "${CONTEXT}" (OpenShift 4.18 on AWS, WMCO 10.18 installed, API ${world.emu.url}):
    Linux nodes:    ip-10-0-12-34 (control plane), ip-10-0-21-7, ip-10-0-22-88
    Windows nodes (SSH endpoint):
${info.nodes.map((n) => `      ${n.node.padEnd(20)} ${ssh(n.address)}`).join('\n')}
    Hosts to join (BYOH):
${info.joinable.map((h) => `      ${h.address.padEnd(20)} ${ssh(h.address)}  (${h.hostname}, Windows Server 2022)`).join('\n')}
    Failing pods in win-apps (live pods, failure explanations); a Linux worker MachineSet
    (Machine API: "Create Windows MachineSet…" makes machines that progress); ImageDigestMirrorSet
    windows-mirrors (winworker-2019-a's mirror tree has drifted).
    Cluster-wide proxy: ${info.proxy?.url ?? ''} (a stand-in on loopback), trusted CA ${SANDBOX_TRUSTED_CA};
    ${info.proxy?.driftedNode ?? ''}'s NO_PROXY has drifted ("Show proxy settings" on it).
  Context "${KUBEADM_CONTEXT}" (kubeadm, Calico, API ${world.kubeadm?.emu.url ?? ''}):
    Host to join:   ${info.kubeadmHost.address}  (${info.kubeadmHost.hostname}, SSH ${ssh(info.kubeadmHost.address)})
    Payload folder: ${info.payloadDir}  (set as kubeWindows.join.payloadFolder)

  Try: open bad/scheduling.yaml (Problems panel, quick fixes); the "Windows on Kubernetes" view:
  a node's Services, "Reboot gracefully", "Collect logs", "Open SSH terminal"; the failing pods'
  "Describe"; "Mirrors: preview / apply"; "Join Windows node…" (${info.joinable[0]?.address} on ${CONTEXT},
  ${info.kubeadmHost.address} on ${KUBEADM_CONTEXT}, whose last question takes the proxy above); "Create Windows
  MachineSet…"; the cluster row's proxy; open good/proxy-fetch.yaml for OCP005.
  The CLI: node dist/cli.js nodes services winworker-2022-b --context ${CONTEXT} --kubeconfig ${info.kubeconfig}
           --key ${info.keyPath} --port ${info.sshPort} --known-hosts ${info.knownHosts}
${bar}
  SANDBOX running. Ctrl-C stops everything.
${bar}`;
}

async function main(): Promise<void> {
  const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'sandbox', 'kube-windows.vsix');
  const port = Number(process.env.SANDBOX_PORT ?? 8765);
  const sshPort = Number(process.env.SANDBOX_SSH_PORT ?? 2222);
  const hosts = Number(process.env.SANDBOX_HOSTS ?? 2);
  // Any folder the user may write: the checkout itself can be read-only.
  const dir = resolve(process.env.SANDBOX_DIR ?? join(ROOT, 'out', 'sandbox', 'world'));
  // Emptied, not removed: the folder may be one the user made (and its parent not theirs).
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
  let world: World | undefined;
  let cs: CodeServer | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nsandbox: stopping code-server, the simulated hosts and the API emulators…');
    await cs?.stop().catch(() => undefined);
    await world?.stop().catch(() => undefined);
    console.log('sandbox: stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  try {
    world = await startWorld({
      dir,
      context: CONTEXT,
      hosts,
      sshPort,
      nodeHosts: true,
      failingPods: true,
      machineApi: { tickMs: 1000 },
      kubeadm: { context: KUBEADM_CONTEXT },
      proxy: true,
    });
    const w = world;
    const kubeadm = w.kubeadm!;
    cs = await startCodeServer({
      vsix,
      folder: join(ROOT, 'examples'),
      port,
      label: 'kw-sandbox-',
      settings: {
        'kubeWindows.kubeconfig': w.kubeconfigPath,
        'kubeWindows.ssh.port': sshPort,
        'kubeWindows.ssh.knownHostsFile': w.knownHostsPath,
        'kubeWindows.ssh.privateKeyPath': w.keyPath,
        'kubeWindows.join.payloadFolder': kubeadm.payloadDir,
      },
    });
    const info: SandboxInfo = {
      url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(cs.workspace)}`,
      workspace: cs.workspace,
      kubeconfig: w.kubeconfigPath,
      contexts: { openshift: CONTEXT, kubeadm: KUBEADM_CONTEXT },
      sshPort,
      user: w.user,
      keyPath: w.keyPath,
      knownHosts: w.knownHostsPath,
      payloadDir: kubeadm.payloadDir,
      joinable: w.addresses.map((address, i) => ({ address, hostname: w.hostnames[i]! })),
      nodes: w.nodes.map((n) => ({ node: n.node, address: n.address })),
      kubeadmHost: { address: kubeadm.address, hostname: kubeadm.hostname },
      ...(w.proxy
        ? { proxy: { url: w.proxy.url, ...(w.proxy.driftedNode ? { driftedNode: w.proxy.driftedNode } : {}) } }
        : {}),
    };
    writeFileSync(join(dir, 'sandbox.json'), JSON.stringify(info, null, 2) + '\n');
    console.log(banner(info, w));
  } catch (err) {
    console.error(`sandbox: could not start: ${err instanceof Error ? err.message : String(err)}`);
    if (/EADDRINUSE/.test(String(err)))
      console.error(
        `sandbox: a port is in use: choose others with SANDBOX_SSH_PORT (now ${sshPort}) and SANDBOX_PORT (now ${port}).`,
      );
    await stop(1);
    return;
  }
}

void main();
