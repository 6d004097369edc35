// The cluster and SSH access of the subcommands that reach them (--context, --user, --key …). Apart
// from kit.ts because it loads @kubernetes/client-node and ssh2, whose set-up costs a tenth of a
// second that `kube-windows check` on files never needs: main.ts loads those commands on demand.
import { accessSync, constants } from 'node:fs';
import type { KubeClient } from '../cluster/kube-client';
import { ClusterOpenError, openCluster } from '../cluster/open';
import { userProblem } from '../core/windows/join-input';
import { SshConnector } from '../remote/ssh';
import { WindowsHost } from '../remote/windows-host';
import { ask, DEFAULT_USER, isYes, UsageError, warn } from './kit';

// ---------------------------------------------------------------------------------------------
// Cluster

export interface Cluster {
  context: string;
  kube: KubeClient;
  /** The cluster's CA from the kubeconfig (kubeadm discovery). */
  caPem?: string;
  /** The context's namespace in the kubeconfig, if it sets one (kubectl's default for -n). */
  namespace?: string;
}

/**
 * The cluster of --context in --kubeconfig (else KUBECONFIG, else ~/.kube/config); a usage error when either cannot be
 * used.
 */
export function clusterFor(values: { context?: string | undefined; kubeconfig?: string | undefined }): Cluster {
  if (!values.context) throw new UsageError('--context is required (a context of your kubeconfig)');
  try {
    const { context, kube, caPem, namespace } = openCluster({
      context: values.context,
      locate: values.kubeconfig ? { explicit: values.kubeconfig } : {},
      readCa: true,
    });
    return { context, kube, ...(caPem ? { caPem } : {}), ...(namespace ? { namespace } : {}) };
  } catch (err) {
    // A cluster that cannot be opened is an environment error: exit code 2.
    if (err instanceof ClusterOpenError) throw new UsageError(err.message);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// SSH

/** The SSH options, checked before anything connects. */
export interface Ssh {
  user: string;
  keyPath?: string;
  port: number;
  knownHostsPath?: string;
  acceptNewHostKey: boolean;
  /** Whether --user or --key was given (remove reaches the host only then). */
  given: boolean;
}

type SshValues = {
  user?: string | undefined;
  key?: string | undefined;
  port?: string | undefined;
  'known-hosts'?: string | undefined;
  'accept-new-host-key'?: boolean | undefined;
};

/** Reads the SSH options: the port a TCP port, the key file readable, the user a Windows user name. */
export function sshOptions(values: SshValues): Ssh {
  const port = values.port === undefined ? 22 : Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError('--port must be a TCP port number');
  const user = values.user ?? DEFAULT_USER;
  const problem = userProblem(user);
  if (problem) throw new UsageError(`--user ${problem}`);
  if (values.key !== undefined) {
    try {
      accessSync(values.key, constants.R_OK);
    } catch (err) {
      throw new UsageError(
        `--key ${values.key}: cannot read the key file (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  return {
    user,
    port,
    acceptNewHostKey: Boolean(values['accept-new-host-key']),
    given: values.user !== undefined || values.key !== undefined,
    ...(values.key !== undefined ? { keyPath: values.key } : {}),
    ...(values['known-hosts'] !== undefined ? { knownHostsPath: values['known-hosts'] } : {}),
  };
}

/** Whether a connection can authenticate at all: a key file or ssh-agent. */
export function canSsh(ssh: Ssh): boolean {
  return Boolean(ssh.keyPath || process.env.SSH_AUTH_SOCK);
}

/** A Windows host over SSH with the terminal's questions: the key's passphrase, an unknown host key. */
export function hostFor(address: string, ssh: Ssh): WindowsHost {
  const connector = new SshConnector({
    host: address,
    port: ssh.port,
    username: ssh.user,
    ...(ssh.keyPath ? { privateKeyPath: ssh.keyPath } : {}),
    ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
    ...(ssh.knownHostsPath ? { knownHostsPath: ssh.knownHostsPath } : {}),
    askPassphrase: (keyPath, attempt) => ask(`Passphrase for ${keyPath}${attempt > 1 ? ' (again)' : ''}: `, true),
    confirmUnknownHost: async (host, p, fingerprint, keyType) => {
      if (ssh.acceptNewHostKey) {
        warn(`trusting the new ${keyType} host key of ${host}:${p} (${fingerprint}) and adding it to known_hosts`);
        return true;
      }
      const answer = await ask(
        `The ${keyType} host key of ${host}:${p} is not known.\nFingerprint: ${fingerprint}\nTrust it and continue? [y/N] `,
        false,
      );
      return answer !== undefined && isYes(answer);
    },
  });
  return new WindowsHost(connector);
}
