// The world the real-VS-Code tests and `npm run sandbox` run against: the Kubernetes API emulator
// seeded with a small mixed OpenShift cluster (mixedCluster() plus the cluster config BYOH needs),
// the OLM and WMCO stand-ins, and simulated Windows hosts over SSH on loopback addresses
// 127.0.0.2.. that "Join Windows node" can join; with `machineApi`, an installer-provisioned AWS cluster
// with a Linux worker MachineSet and the machine-controller double (Windows MachineSets). Test doubles only: bundled into out/e2e and
// out/sandbox, never into dist/ or the .vsix.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator, type Emulator, type KubeObject } from './kube-api-emulator';
import { mixedCluster, namespace, openshiftClusterConfig, WMCO_NAMESPACE } from './kube-seed';
import { infrastructure, linuxWorkerMachineSet } from './machine-api-seed';
import { startMachineControllerDouble } from './machine-controller-double';
import { attachOlmStandin } from './olm-standin';
import { attachWmcoStandin, type WmcoHost } from './wmco-standin';
import { startWindowsHostSim, type SimHost } from './windows-host-sim';

export interface WorldOptions {
  /** Folder for the kubeconfig and the SSH key (created; removed by stop() when `cleanup`). */
  dir: string;
  /** Context name in the kubeconfig. */
  context: string;
  /** Simulated Windows hosts to start (not yet joined), at 127.0.0.2, 127.0.0.3, ... */
  hosts: number;
  /** SSH port of the simulated hosts; 22 so that the join commands (which use port 22) reach them. */
  sshPort?: number;
  user?: string;
  cleanup?: boolean;
  /**
   * OpenShift on AWS with the Machine API: the Infrastructure says AWS, a Linux worker MachineSet and
   * WMCO's windows-user-data secret exist, and the machine-controller double makes and moves Machines
   * (one step per `machineApi.tickMs`).
   */
  machineApi?: { tickMs: number };
}

export interface World {
  emu: Emulator;
  kubeconfigPath: string;
  keyPath: string;
  user: string;
  sims: SimHost[];
  addresses: string[];
  /** Host name each simulated host reports (its Node gets this name, lower-cased). */
  hostnames: string[];
  stop(): Promise<void>;
}

export const SIM_HOST_BUILD = '10.0.20348';

function keySecret(pem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cloud-private-key', namespace: WMCO_NAMESPACE },
    type: 'Opaque',
    data: { 'private-key.pem': Buffer.from(pem).toString('base64') },
  } as KubeObject;
}

export async function startWorld(o: WorldOptions): Promise<World> {
  mkdirSync(o.dir, { recursive: true });
  const keyPath = join(o.dir, 'id_ed25519');
  rmSync(keyPath, { force: true });
  rmSync(`${keyPath}.pub`, { force: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'kube-windows-sandbox', '-f', keyPath]);
  const publicKeyLine = readFileSync(`${keyPath}.pub`, 'utf8').trim();
  const user = o.user ?? 'Administrator';
  const config = openshiftClusterConfig({ hybridOverlay: true });
  const machineApi: KubeObject[] = o.machineApi
    ? [
        namespace('openshift-machine-api'),
        linuxWorkerMachineSet('AWS'),
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'windows-user-data', namespace: 'openshift-machine-api' },
          type: 'Opaque',
          data: { userData: Buffer.from('<powershell></powershell>').toString('base64') },
        } as KubeObject,
      ]
    : [];
  // The Machine API cluster is an AWS one; the plain world is platform None (BYOH).
  const objects = o.machineApi ? [...config.filter((x) => x.kind !== 'Infrastructure'), infrastructure('AWS'), ...machineApi] : config;
  const emu = await startEmulator({ objects: [...mixedCluster(), ...objects, keySecret(readFileSync(keyPath, 'utf8'))] });
  const machines = o.machineApi ? startMachineControllerDouble(emu, { tickMs: o.machineApi.tickMs }) : undefined;
  const kubeconfigPath = emu.kubeconfig({ file: join(o.dir, 'kubeconfig'), context: o.context });

  const sims: SimHost[] = [];
  const addresses: string[] = [];
  const hostnames: string[] = [];
  const wmcoHosts = new Map<string, WmcoHost>();
  try {
    for (let i = 0; i < o.hosts; i++) {
      const address = `127.0.0.${i + 2}`;
      const hostname = `WIN-SBX${i + 1}`;
      const sim = await startWindowsHostSim({
        listenHost: address,
        port: o.sshPort ?? 22,
        users: { [user]: [publicKeyLine] },
        defaultRouteIPv4: address,
        hostname,
        domain: 'lab.example.com',
        containersFeature: 'Enabled',
        dns: { 'api-int.test.example.com': ['10.0.0.2'] },
        rebootDelayMs: 50,
        rebootDurationMs: 300,
      } as Parameters<typeof startWindowsHostSim>[0]);
      sims.push(sim);
      addresses.push(address);
      hostnames.push(hostname);
      wmcoHosts.set(address, { hostname, build: SIM_HOST_BUILD });
    }
  } catch (err) {
    machines?.stop();
    await Promise.all(sims.map((s) => s.stop()));
    await emu.stop();
    throw err;
  }
  const olm = attachOlmStandin(emu, { stepMs: 50 });
  const wmco = attachWmcoStandin(emu, { hosts: wmcoHosts, stepMs: 100 });
  writeFileSync(join(o.dir, 'hosts.txt'), addresses.map((a, i) => `${a} ${hostnames[i]}`).join('\n') + '\n');
  return {
    emu,
    kubeconfigPath,
    keyPath,
    user,
    sims,
    addresses,
    hostnames,
    async stop() {
      olm.stop();
      wmco.stop();
      machines?.stop();
      await Promise.all(sims.map((s) => s.stop()));
      await emu.stop();
      if (o.cleanup) rmSync(o.dir, { recursive: true, force: true });
    },
  };
}
