// What kubeadm join and the kubelet do to the API emulator when a simulated host joins a kubeadm
// cluster (test-only): the token must be a live bootstrap token, then the Node registers (with the
// taints of the kubelet's --register-with-taints) and turns Ready. And the payload binaries, as the
// simulated host reads their versions. Shared by the kubeadm join tests and the sandbox.
import { randomBytes } from 'node:crypto';
import { caCertHash } from '../../src/core/windows/kubeadm';
import type { Emulator, KubeObject } from './kube-api-emulator';
import { windowsNode } from './kube-seed';
import type { SimHost } from './windows-host-sim';

/** Wires `sim`'s `kubeadm join` to `emu` (whose CA is caPem); the Node gets InternalIP `address`. */
export function wireKubeadmJoin(emu: Emulator, caPem: string, sim: SimHost, address: string): void {
  const url = new URL(emu.url);
  sim.expectedJoin = {
    endpoint: `${url.hostname}:${url.port}`,
    caCertHash: caCertHash(caPem),
    token: (token) => {
      const [id, secret] = token.split('.');
      const s = emu
        .list('Secret')
        .find((o) => o.metadata.name === `bootstrap-token-${id}` && o.metadata.namespace === 'kube-system') as
        (KubeObject & { data?: Record<string, string> }) | undefined;
      return Boolean(s?.data && Buffer.from(s.data['token-secret'] ?? '', 'base64').toString() === secret);
    },
  };
  sim.onKubeadmJoin = ({ nodeName, build }) => {
    const node = windowsNode(nodeName, { build: build as '10.0.20348', unmanaged: true, ready: false, address });
    // The kubelet registers with the taints of its --register-with-taints flag (key=value:Effect,...).
    const flag = /--register-with-taints=(\S+)/.exec(
      [...sim.state.services].find(([n]) => n.toLowerCase() === 'kubelet')?.[1].binaryPathName ?? '',
    )?.[1];
    (node as unknown as { spec: { taints?: unknown[] } }).spec.taints = (flag ? flag.split(',') : []).map((t) => {
      const [kv, effect] = t.split(':');
      const [key, value] = (kv ?? '').split('=');
      return { key, ...(value ? { value } : {}), effect };
    });
    emu.apply(node);
    setTimeout(() => {
      const current = emu.get('Node', nodeName);
      if (current)
        emu.apply({
          ...current,
          status: {
            ...(current.status as object),
            conditions: [
              { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
            ],
          },
        });
    }, 100);
  };
}

/** A kubeadm or kubelet binary as the simulated host reads its version: the string Go's linker put in. */
export const fakeKubeBinary = (version: string, bytes: number): Buffer =>
  Buffer.concat([
    Buffer.from(`MZ\0-X k8s.io/component-base/version.gitVersion=${version}\0`, 'latin1'),
    randomBytes(bytes),
  ]);
