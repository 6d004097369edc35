// `npm run sandbox`: a SANDBOX to try kube-windows without a cluster. The API emulator with a small
// mixed OpenShift cluster, simulated Windows hosts over SSH (joinable through the WMCO stand-in) and
// code-server with the packaged extension and a copy of examples/ open. Test doubles only: this file
// is bundled into out/sandbox (git-ignored) and never enters the .vsix. Ctrl-C stops everything.
import { join } from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import { startWorld, type World } from '../support/sandbox-world';
import { ROOT, startCodeServer, type CodeServer } from '../e2e/harness';

const CONTEXT = 'kube-windows-sandbox';

async function main(): Promise<void> {
  const vsix = process.env.KW_VSIX ?? join(ROOT, 'out', 'sandbox', 'kube-windows.vsix');
  const port = Number(process.env.SANDBOX_PORT ?? 8765);
  const hosts = Number(process.env.SANDBOX_HOSTS ?? 2);
  const dir = join(ROOT, 'out', 'sandbox', 'world');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let world: World | undefined;
  let cs: CodeServer | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nsandbox: stopping code-server, the simulated hosts and the API emulator…');
    await cs?.stop().catch(() => undefined);
    await world?.stop().catch(() => undefined);
    console.log('sandbox: stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  try {
    // Port 22: the join and terminal commands reach hosts on SSH's port; root (or CAP_NET_BIND_SERVICE) needed.
    world = await startWorld({ dir, context: CONTEXT, hosts, sshPort: Number(process.env.SANDBOX_SSH_PORT ?? 22) });
    cs = await startCodeServer({ vsix, folder: join(ROOT, 'examples'), port, label: 'kw-sandbox-', settings: { 'kubeWindows.kubeconfig': world.kubeconfigPath } });
  } catch (err) {
    console.error(`sandbox: could not start: ${err instanceof Error ? err.message : String(err)}`);
    if (/EACCES/.test(String(err))) console.error('sandbox: the simulated hosts listen on port 22 of 127.0.0.x: run as root, or set SANDBOX_SSH_PORT (the join command then cannot reach them).');
    await stop(1);
    return;
  }
  const bar = '='.repeat(78);
  console.log(`
${bar}
  kube-windows SANDBOX: simulated cluster and hosts, nothing here is real
${bar}
  VS Code (code-server):  http://127.0.0.1:${port}/?folder=${encodeURIComponent(cs.workspace)}
  Workspace:              a copy of examples/ (${cs.workspace})
  Kubeconfig:             ${world.kubeconfigPath}  (context "${CONTEXT}", set as kubeWindows.kubeconfig)
  API server:             ${world.emu.url}  (the Kubernetes API emulator)

  Cluster "${CONTEXT}" (OpenShift 4.18, WMCO 10.18 installed):
    Linux nodes:    ip-10-0-12-34 (control plane), ip-10-0-21-7, ip-10-0-22-88
    Windows nodes:  winworker-2019-a (Windows Server 2019), winworker-2022-b (2022),
                    byoh-win2022-1 (2022, BYOH)
    BYOH instance not yet joined: 10.0.140.25 (windows-instances ConfigMap)
    ImageDigestMirrorSet: windows-mirrors; RuntimeClasses windows2019, windows2022
  Simulated Windows hosts to join (SSH on port 22, user ${world.user}):
${world.addresses.map((a, i) => `    ${a}  (${world!.hostnames[i]}, Windows Server 2022)`).join('\n')}
    SSH private key: ${world.keyPath}

  Try: open bad/scheduling.yaml (Problems panel, quick fixes); the "Windows on Kubernetes"
  view; "kube-windows: Show join plan…" then "kube-windows: Join Windows node…" with
  address ${world.addresses[0]}, user ${world.user}, key ${world.keyPath}.
${bar}
  SANDBOX running. Ctrl-C stops everything.
${bar}`);
}

void main();
