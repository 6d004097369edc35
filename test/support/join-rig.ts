// A test rig for the join flows: the API emulator (with the OLM and WMCO stand-ins for OpenShift),
// simulated Windows hosts on loopback addresses 127.0.0.2.. sharing one SSH port, a user key, a
// known_hosts file that pins every host key, and helpers to build WindowsHost/KubeClient objects.
// Test double glue only: never import from src/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/cluster/kube-client';
import { SshConnector } from '../../src/remote/ssh';
import { WindowsHost } from '../../src/remote/windows-host';
import { startEmulator, type Emulator, type KubeObject } from './kube-api-emulator';
import { startWindowsHostSim, type SimHost, type SimHostOptions } from './windows-host-sim';

export interface RigOptions {
  hosts: number;
  objects?: KubeObject[];
  /** Per host: extra simulator options (state, faults are set later on the SimHost). */
  host?: (index: number, address: string) => Partial<SimHostOptions>;
  user?: string;
}

export interface Rig {
  dir: string;
  emu: Emulator;
  kubeconfigPath: string;
  kube: KubeClient;
  caPem: string;
  user: string;
  keyPath: string;
  publicKeyLine: string;
  knownHostsPath: string;
  port: number;
  sims: SimHost[];
  addresses: string[];
  hostFor(index: number, options?: HostForOptions): WindowsHost;
  stop(): Promise<void>;
}

/** Retries as WindowsHost takes them; keepalives and the connect timeout as a user may set them (defaults below). */
export interface HostForOptions {
  retries?: number;
  backoffMs?: number;
  connectTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
}

export const hostAddress = (i: number): string => `127.0.0.${i + 2}`;

export async function startRig(o: RigOptions): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'kw-join-'));
  const keyPath = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'kube-windows-test', '-f', keyPath]);
  const publicKeyLine = readFileSync(`${keyPath}.pub`, 'utf8').trim();
  const user = o.user ?? 'Administrator';
  const emu = await startEmulator({ objects: o.objects ?? [] });
  const kubeconfigPath = emu.kubeconfig({ file: join(dir, 'kubeconfig') });
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const kube = new KubeClient(config);

  const sims: SimHost[] = [];
  const addresses: string[] = [];
  let port = 0;
  try {
    for (let i = 0; i < o.hosts; i++) {
      const address = hostAddress(i);
      const extra = o.host?.(i, address) ?? {};
      const sim = await startWindowsHostSim({
        listenHost: address,
        port,
        users: { [user]: [publicKeyLine] },
        defaultRouteIPv4: address,
        rebootDelayMs: 50,
        rebootDurationMs: 300,
        ...extra,
      } as SimHostOptions);
      port = sim.port;
      sims.push(sim);
      addresses.push(address);
    }
  } catch (err) {
    // A half-built rig must not keep the test process alive.
    await Promise.all(sims.map((s) => s.stop()));
    await emu.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, sims.map((s) => s.knownHostsLine()).join('\n') + '\n', { mode: 0o600 });

  const hosts: WindowsHost[] = [];
  return {
    dir,
    emu,
    kubeconfigPath,
    kube,
    caPem: emu.caPem,
    user,
    keyPath,
    publicKeyLine,
    knownHostsPath,
    port,
    sims,
    addresses,
    hostFor(index, options = {}) {
      const connector = new SshConnector({
        host: addresses[index] as string,
        port,
        username: user,
        privateKeyPath: keyPath,
        knownHostsPath,
        connectTimeoutMs: options.connectTimeoutMs ?? 5000,
        keepaliveIntervalMs: options.keepaliveIntervalMs ?? 2000,
        ...(options.keepaliveCountMax === undefined ? {} : { keepaliveCountMax: options.keepaliveCountMax }),
      });
      const host = new WindowsHost(connector, { retries: options.retries ?? 2, backoffMs: options.backoffMs ?? 50 });
      hosts.push(host);
      return host;
    },
    async stop() {
      for (const h of hosts) h.close();
      await Promise.all(sims.map((s) => s.stop()));
      await emu.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
