// `kube-windows join` and `kube-windows remove`: the bootstrap engine from a terminal or CI, with a
// text progress display. Several --address values join concurrently, at most --concurrency at once.

import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { KubeClient } from '../cluster/client';
import { classifyError } from '../cluster/errors';
import { configForContext, loadKubeconfig } from '../cluster/kubeconfig';
import { addressProblem, detectVia, joinPlan, removePlanFor, runAnyPlan, runBounded, userProblem, type JoinVia } from '../bootstrap/join';
import { resolvePayload, type Payload } from '../bootstrap/payload';
import { Secret } from '../bootstrap/plan';
import { PreflightError } from '../bootstrap/preflight';
import { renderPlan } from '../bootstrap/render';
import type { RunEvent, RunResult } from '../bootstrap/runner';
import { SshConnector } from '../remote/ssh';
import { RemoteError } from '../remote/types';
import { WindowsHost } from '../remote/windows-host';

export class JoinUsageError extends Error {}

export const JOIN_HELP = `Usage:
  kube-windows join --context C --address A [--address B ...] --user U [--key FILE] [options]
  kube-windows remove --context C --address A [--node NAME] [--via byoh|kubeadm] [--key FILE --user U]

join options:
  --via byoh|kubeadm        how to join (default: byoh on OpenShift/OKD, kubeadm elsewhere)
  --dry-run                 print the plan (steps, PowerShell, API calls; secrets redacted) and exit
  --concurrency N           hosts joined at once (default 4)
  --key FILE                private key for SSH (else the keys of ssh-agent, SSH_AUTH_SOCK)
  --port N                  SSH port (default 22)
  --known-hosts FILE        default ~/.ssh/known_hosts
  --accept-new-host-key     trust an unknown host key on first use (a changed key is always refused)
  --kubeconfig FILE         default: KUBECONFIG, then ~/.kube/config
  BYOH:    --install-wmco Automatic|Manual   install WMCO first when it is missing
           --create-key-secret FILE          create cloud-private-key from FILE when it is missing
  kubeadm: --payload DIR     folder with containerd-<v>-windows-amd64.tar.gz, kubelet.exe, kubeadm.exe
           --payload-url NAME=URL#sha256=HEX
                             the host downloads NAME (containerd, kubelet, kubeadm) from URL and checks it
           --taint           taint the node os=windows:NoSchedule
Exit codes: 0 every host joined, 1 a host failed, 2 usage or connection error.
`;

export interface Common {
  context: string;
  kube: KubeClient;
  caPem?: string;
}

export function clusterFor(values: { context?: string; kubeconfig?: string }): Common {
  if (!values.context) throw new JoinUsageError('--context is required (a context of your kubeconfig)');
  const loaded = loadKubeconfig(values.kubeconfig ? { explicit: values.kubeconfig } : {});
  if (!loaded.ok) throw new JoinUsageError(loaded.message);
  if (!loaded.contexts.some((c) => c.name === values.context))
    throw new JoinUsageError(`the kubeconfig has no context "${values.context}" (it has: ${loaded.contexts.map((c) => c.name).join(', ') || 'none'})`);
  const config = configForContext(loaded.config, values.context);
  const cluster = config.getCurrentCluster();
  let caPem: string | undefined;
  if (cluster?.caData) caPem = Buffer.from(cluster.caData, 'base64').toString('utf8');
  else if (cluster?.caFile) caPem = readFileSync(cluster.caFile, 'utf8');
  return { context: values.context, kube: new KubeClient(config), ...(caPem ? { caPem } : {}) };
}

/** Asks a question on the terminal; `hidden` does not echo what is typed (passphrases). */
export function ask(question: string, hidden: boolean): Promise<string | undefined> {
  if (!process.stdin.isTTY) return Promise.resolve(undefined);
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolveP) => {
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolveP(answer);
    });
    muted = hidden;
    rl.on('SIGINT', () => {
      rl.close();
      resolveP(undefined);
    });
  });
}

export function hostFor(address: string, user: string, values: Record<string, unknown>): WindowsHost {
  const port = values.port ? Number(values.port) : 22;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new JoinUsageError('--port must be a TCP port number');
  const connector = new SshConnector({
    host: address,
    port,
    username: user,
    ...(values.key ? { privateKeyPath: values.key as string } : {}),
    ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
    ...(values['known-hosts'] ? { knownHostsPath: values['known-hosts'] as string } : {}),
    askPassphrase: (keyPath, attempt) => ask(`Passphrase for ${keyPath}${attempt > 1 ? ' (again)' : ''}: `, true),
    confirmUnknownHost: async (host, p, fingerprint, keyType) => {
      if (values['accept-new-host-key']) {
        process.stderr.write(`kube-windows: trusting the new ${keyType} host key of ${host}:${p} (${fingerprint}) and adding it to known_hosts\n`);
        return true;
      }
      const answer = await ask(`The ${keyType} host key of ${host}:${p} is not known.\nFingerprint: ${fingerprint}\nTrust it and continue? [y/N] `, false);
      return answer !== undefined && /^y(es)?$/i.test(answer.trim());
    },
  });
  return new WindowsHost(connector);
}

/** One line per meaningful event, prefixed with the host when several run at once. */
export function progressLine(prefix: string, e: RunEvent): string | undefined {
  const p = prefix ? `[${prefix}] ` : '';
  switch (e.type) {
    case 'plan-start':
      return `${p}${e.title} (${e.steps.length} steps)`;
    case 'step-start':
      return `${p}${e.index}/${e.total} ${e.title}`;
    case 'step-end':
      return `${p}  ${e.outcome === 'skipped' ? '= already done' : e.outcome === 'applied' ? `✓ done in ${(e.durationMs / 1000).toFixed(1)} s` : `✗ ${e.outcome}${e.message ? `: ${e.message}` : ''}`}`;
    case 'log':
      return e.stepId ? `${p}    ${e.message}` : `${p}${e.message}`;
    case 'plan-end':
      return `${p}${e.outcome === 'done' ? 'joined' : e.outcome}${e.outcome === 'done' ? '' : e.message ? `: ${e.message.split('\n')[0]}` : ''} (${(e.durationMs / 1000).toFixed(1)} s)`;
    default:
      return undefined;
  }
}

export function userMessage(err: unknown, context: string): string {
  if (err instanceof JoinUsageError || err instanceof RemoteError || err instanceof PreflightError) return err.message;
  if (err instanceof Error && (err.name === 'PayloadError' || err.name === 'JoinInputError')) return err.message;
  const item = classifyError(err, { context });
  return item.message;
}

export async function runJoin(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      context: { type: 'string' },
      kubeconfig: { type: 'string' },
      address: { type: 'string', multiple: true },
      user: { type: 'string' },
      key: { type: 'string' },
      port: { type: 'string' },
      via: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '4' },
      'known-hosts': { type: 'string' },
      'accept-new-host-key': { type: 'boolean', default: false },
      'install-wmco': { type: 'string' },
      'create-key-secret': { type: 'string' },
      payload: { type: 'string' },
      'payload-url': { type: 'string', multiple: true },
      taint: { type: 'boolean', default: false },
      'poll-interval': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(JOIN_HELP);
    return 0;
  }
  const addresses = values.address ?? [];
  if (addresses.length === 0) throw new JoinUsageError('--address is required (repeat it to join several hosts)');
  if (new Set(addresses).size !== addresses.length) throw new JoinUsageError('an --address is given twice');
  if (!values.user) throw new JoinUsageError('--user is required (the Windows account to connect as)');
  if (values.via && values.via !== 'byoh' && values.via !== 'kubeadm') throw new JoinUsageError('--via must be byoh or kubeadm');
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new JoinUsageError('--concurrency must be a positive whole number');
  const install = values['install-wmco'];
  if (install && install !== 'Automatic' && install !== 'Manual') throw new JoinUsageError('--install-wmco must be Automatic or Manual');

  for (const a of addresses) {
    const problem = addressProblem(a, (values.via as JoinVia | undefined) ?? 'kubeadm');
    if (problem) throw new JoinUsageError(`--address ${problem}`);
  }
  const userIssue = userProblem(values.user);
  if (userIssue) throw new JoinUsageError(`--user ${userIssue}`);

  const cluster = clusterFor(values);
  let via: JoinVia;
  try {
    via = (values.via as JoinVia | undefined) ?? (await detectVia(cluster.kube));
  } catch (err) {
    process.stderr.write(`kube-windows: ${userMessage(err, cluster.context)}\n`);
    return 2;
  }
  let payload: Payload | undefined;
  if (via === 'kubeadm') {
    try {
      payload = await resolvePayload({ ...(values.payload ? { folder: values.payload } : {}), urls: payloadUrls(values['payload-url'] ?? []) });
    } catch (err) {
      process.stderr.write(`kube-windows: ${(err as Error).message}\n`);
      return 2;
    }
  }
  let privateKey: { pem: Secret; source: string } | undefined;
  if (values['create-key-secret']) {
    try {
      privateKey = { pem: new Secret(readFileSync(values['create-key-secret'], 'utf8')), source: values['create-key-secret'] };
    } catch (err) {
      throw new JoinUsageError(`cannot read ${values['create-key-secret']}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  const pollMs = values['poll-interval'] ? Number(values['poll-interval']) : undefined;

  const build = (address: string) =>
    joinPlan({
      kube: cluster.kube,
      host: hostFor(address, values.user as string, values),
      address,
      user: values.user as string,
      via,
      ...(install ? { installWmco: { approval: install as 'Automatic' | 'Manual' } } : {}),
      ...(privateKey ? { privateKey } : {}),
      ...(payload ? { payload } : {}),
      ...(values.taint ? { taint: true } : {}),
      ...(cluster.caPem ? { caPem: cluster.caPem } : {}),
      ...(pollMs ? { pollMs } : {}),
    });

  if (values['dry-run']) {
    for (const address of addresses) {
      const p = build(address);
      process.stdout.write(`${renderPlan(p.plan as never)}\n`);
      p.ctx.opts.host.close();
    }
    return 0;
  }

  const ctl = new AbortController();
  const onSigint = () => {
    process.stderr.write('kube-windows: cancelling (the plans stop after the current command; run again to resume)\n');
    ctl.abort(new Error('cancelled by the user'));
  };
  process.once('SIGINT', onSigint);
  const prefix = addresses.length > 1;
  try {
    const results = await runBounded(addresses, concurrency, async (address) => {
      const p = build(address);
      try {
        return await runAnyPlan(p, {
          signal: ctl.signal,
          onEvent: (e) => {
            const line = progressLine(prefix ? address : '', e);
            if (line) process.stdout.write(`${line}\n`);
          },
        });
      } finally {
        p.ctx.opts.host.close();
      }
    });
    let failed = 0;
    const summary: string[] = [];
    results.forEach((r, i) => {
      const address = addresses[i] as string;
      if (r.ok && r.value.outcome === 'done') summary.push(`  ✓ ${address}`);
      else {
        failed++;
        const why = r.ok ? (r.value.error?.message ?? r.value.outcome) : userMessage(r.error, cluster.context);
        summary.push(`  ✗ ${address}: ${why.split('\n')[0]}`);
        if (r.ok && r.value.error) {
          const pre = preflightOf(r.value);
          if (pre) summary.push(pre);
        }
      }
    });
    if (addresses.length > 1) process.stdout.write(`\n${addresses.length - failed} of ${addresses.length} hosts joined:\n${summary.join('\n')}\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

/** `containerd=https://…#sha256=<hex>` values of --payload-url. */
function payloadUrls(values: string[]): Record<string, { url: string; sha256: string }> {
  const out: Record<string, { url: string; sha256: string }> = {};
  for (const v of values) {
    const m = /^(containerd|kubelet|kubeadm)=(.+)#sha256=([0-9a-fA-F]{64})$/.exec(v);
    if (!m) throw new JoinUsageError(`--payload-url takes NAME=URL#sha256=HEX with NAME containerd, kubelet or kubeadm (got "${JSON.stringify(v).slice(1, -1)}")`);
    out[m[1] as string] = { url: m[2] as string, sha256: (m[3] as string).toLowerCase() };
  }
  return out;
}

function preflightOf(r: RunResult): string | undefined {
  const m = r.error?.message ?? '';
  return m.includes('\n')
    ? m
        .split('\n')
        .slice(1)
        .map((l) => `      ${l}`)
        .join('\n')
    : undefined;
}

export async function runRemove(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      context: { type: 'string' },
      kubeconfig: { type: 'string' },
      address: { type: 'string' },
      node: { type: 'string' },
      via: { type: 'string' },
      user: { type: 'string' },
      key: { type: 'string' },
      port: { type: 'string' },
      'known-hosts': { type: 'string' },
      'accept-new-host-key': { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'poll-interval': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(JOIN_HELP);
    return 0;
  }
  if (!values.address) throw new JoinUsageError('--address is required');
  if (values.via && values.via !== 'byoh' && values.via !== 'kubeadm') throw new JoinUsageError('--via must be byoh or kubeadm');
  const cluster = clusterFor(values);
  try {
    const via = (values.via as JoinVia | undefined) ?? (await detectVia(cluster.kube));
    const host = via === 'kubeadm' && values.user ? hostFor(values.address, values.user, values) : undefined;
    const pollMs = values['poll-interval'] ? Number(values['poll-interval']) : undefined;
    const r = await removePlanFor({ kube: cluster.kube, via, address: values.address, ...(values.node ? { nodeName: values.node } : {}), ...(host ? { host } : {}), ...(pollMs ? { pollMs } : {}) });
    if (values['dry-run']) {
      process.stdout.write(`${renderPlan(r.plan)}\n`);
      return 0;
    }
    try {
      const result = await r.run({
        onEvent: (e) => {
          const line = progressLine('', e);
          if (line) process.stdout.write(`${line}\n`);
        },
      });
      return result.outcome === 'done' ? 0 : 1;
    } finally {
      host?.close();
    }
  } catch (err) {
    process.stderr.write(`kube-windows: ${userMessage(err, cluster.context)}\n`);
    return 2;
  }
}
