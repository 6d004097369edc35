// A pods/exec stand-in (test-only) for a HostProcess pod on a simulated Windows node: it refuses an
// exec into a pod the API server does not have Running, or one not pinned to the node, and otherwise
// runs the exec'd command line on the node's simulated host over SSH (a HostProcess container runs on
// the host itself), passing stdout and stderr back and the exit code as the API server's status
// (channel 3: Success, or Failure with reason NonZeroExitCode and the ExitCode cause). Every exec is
// recorded. The kubelet side of pods/exec (SPDY from the API server) is what it stands in for.
import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import type { V1Status } from '@kubernetes/client-node';
import type { KubeClient } from '../../src/cluster/kube-client';
import type { HostConnector } from '../../src/remote/types';

export interface PodExecRecord {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
}

export function podExecStandin(o: { kube: KubeClient; nodeName: string; connector: HostConnector }): {
  exec: (...args: unknown[]) => Promise<never>;
  records: PodExecRecord[];
} {
  const records: PodExecRecord[] = [];
  const exec = async (...args: unknown[]): Promise<never> => {
    const [namespace, pod, container, command, stdout, stderr, , , status] = args as [
      string,
      string,
      string,
      string[],
      Writable | null,
      Writable | null,
      unknown,
      boolean,
      ((s: V1Status) => void) | undefined,
    ];
    records.push({ namespace, pod, container, command });
    const obj = await o.kube.get<{ spec?: { nodeName?: string }; status?: { phase?: string } }>(
      `/api/v1/namespaces/${namespace}/pods/${pod}`,
    );
    if (obj.status?.phase !== 'Running' || obj.spec?.nodeName !== o.nodeName)
      throw new Error('Unexpected server response: 400');
    const ws = new EventEmitter() as EventEmitter & { close(): void };
    ws.close = () => ws.emit('close');
    void (async () => {
      const conn = await o.connector.connect();
      try {
        const r = await conn.exec(command);
        stdout?.write(Buffer.from(r.stdout));
        if (r.stderr) stderr?.write(Buffer.from(r.stderr));
        status?.(
          r.exitCode === 0
            ? ({ status: 'Success', metadata: {} } as V1Status)
            : ({
                status: 'Failure',
                reason: 'NonZeroExitCode',
                message: `command terminated with non-zero exit code: ${String(r.exitCode)}`,
                details: { causes: [{ reason: 'ExitCode', message: String(r.exitCode) }] },
                metadata: {},
              } as V1Status),
        );
      } finally {
        conn.close();
        ws.close();
      }
    })();
    return ws as never;
  };
  return { exec, records };
}
