// `kube-windows join` and `kube-windows remove`: the bootstrap engine from a terminal or CI, with a
// text progress display. Several --address values join concurrently, at most --concurrency at once.
// The options they share with the other commands (cluster, SSH, --yes, --dry-run) come from ./kit.

import { readFileSync } from 'node:fs';
import {
  addressProblem,
  detectVia,
  dryRunFindings,
  joinPlan,
  removePlanFor,
  runBounded,
  type JoinRequest,
  type JoinVia,
} from '../bootstrap/join';
import { blocking, formatFindings } from '../core/windows/findings';
import { CNI_CHOICES, kubernetesVersionProblem } from '../core/windows/kubeadm-cluster';
import { reservationProblem } from '../core/windows/join-input';
import { resolvePayload, type Payload } from '../bootstrap/payload';
import { byohProxyRefusal } from '../core/proxy/words';
import { Secret } from '../bootstrap/plan';
import { renderPlan } from '../bootstrap/render';
import type { RunResult } from '../bootstrap/runner';
import {
  EXIT,
  oneOf,
  out,
  positiveInteger,
  progressLine,
  UsageError,
  userMessage,
  warn,
  withCancel,
  resumeLine,
  wmcoOptions,
} from './kit';
import { commandHelp, parseCommand } from './declare';
import { JOIN_COMMAND, REMOVE_COMMAND } from './commands';
import { clusterFor, hostFor, sshOptions } from './kit-remote';

const VIA = ['byoh', 'kubeadm'] as const;
const DEFAULT_CONCURRENCY = 4;
const HELP_FACTS = { concurrency: DEFAULT_CONCURRENCY };

export async function runJoin(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(JOIN_COMMAND, args);
  if (values.help) {
    process.stdout.write(commandHelp(JOIN_COMMAND, HELP_FACTS));
    return EXIT.OK;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const cni = oneOf('cni', values.cni, CNI_CHOICES);
  const kubernetesVersion = values['kubernetes-version'];
  if (kubernetesVersion !== undefined) {
    const problem = kubernetesVersionProblem(kubernetesVersion);
    if (problem) throw new UsageError(`--kubernetes-version ${problem}`);
  }
  const reserved: { kubeReserved?: string; systemReserved?: string } = {};
  for (const [option, key] of [
    ['kube-reserved', 'kubeReserved'],
    ['system-reserved', 'systemReserved'],
  ] as const) {
    const value = values[option];
    if (value === undefined) continue;
    const problem = reservationProblem(value);
    if (problem) throw new UsageError(`--${option} ${problem}`);
    reserved[key] = value;
  }
  const proxy = values.proxy;
  const chosenVia = oneOf('via', values.via, VIA);
  const proxyOption = proxy !== undefined ? '--proxy' : values['no-proxy'] !== undefined ? '--no-proxy' : undefined;
  if (chosenVia === 'byoh' && proxyOption) throw new UsageError(byohProxyRefusal(proxyOption));
  if (proxy !== undefined && !/^https?:\/\/[^\s/]+/i.test(proxy))
    throw new UsageError('--proxy takes an http:// or https:// URL, such as http://proxy.corp:3128');
  if (values['no-proxy'] !== undefined && proxy === undefined) throw new UsageError('--no-proxy goes with --proxy');
  const addresses = values.address ?? [];
  if (addresses.length === 0) throw new UsageError('--address is required (repeat it to join several hosts)');
  if (new Set(addresses).size !== addresses.length) throw new UsageError('an --address is given twice');
  const concurrency = positiveInteger('concurrency', values.concurrency) ?? DEFAULT_CONCURRENCY;
  const install = oneOf('install-wmco', values['install-wmco'], ['Automatic', 'Manual']);
  const wmco = wmcoOptions(values);
  for (const a of addresses) {
    const problem = addressProblem(a, chosenVia ?? 'kubeadm');
    if (problem) throw new UsageError(`--address ${problem}`);
  }
  const ssh = sshOptions(values);
  const pollMs = positiveInteger('poll-interval', values['poll-interval']);
  const urls = payloadUrls(values['payload-url'] ?? []);
  let privateKey: { pem: Secret; source: string } | undefined;
  if (values['create-key-secret']) {
    try {
      privateKey = {
        pem: new Secret(readFileSync(values['create-key-secret'], 'utf8')),
        source: values['create-key-secret'],
      };
    } catch (err) {
      throw new UsageError(
        `cannot read ${values['create-key-secret']}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }

  const cluster = clusterFor(values);
  let via: JoinVia;
  try {
    via = chosenVia ?? (await detectVia(cluster.kube));
  } catch (err) {
    warn(userMessage(err, cluster.context));
    return EXIT.USAGE;
  }
  // Found to be OpenShift: the same refusal as an explicit --via byoh, before anything runs.
  if (via === 'byoh' && proxyOption) {
    warn(byohProxyRefusal(proxyOption));
    return EXIT.USAGE;
  }
  let payload: Payload | undefined;
  if (via === 'kubeadm') {
    try {
      payload = await resolvePayload({ ...(values.payload ? { folder: values.payload } : {}), urls });
    } catch (err) {
      warn((err as Error).message);
      return EXIT.USAGE;
    }
  }

  const request = (address: string, planned?: JoinRequest['planned']): JoinRequest => ({
    kube: cluster.kube,
    host: hostFor(address, ssh),
    address,
    user: ssh.user,
    via,
    wmco,
    sshPort: ssh.port,
    ...(install ? { installWmco: { approval: install } } : {}),
    ...(privateKey ? { privateKey } : {}),
    ...(payload ? { payload } : {}),
    ...(values.taint ? { taint: true } : {}),
    ...(cni ? { cni } : {}),
    ...(values['runtime-class'] ? { runtimeClass: true } : {}),
    ...(kubernetesVersion ? { kubernetesVersion } : {}),
    ...reserved,
    ...(proxy ? { proxy } : {}),
    ...(values['no-proxy'] ? { noProxy: values['no-proxy'] } : {}),
    ...(planned ? { planned } : {}),
    ...(cluster.caPem ? { caPem: cluster.caPem } : {}),
    ...(pollMs ? { pollMs } : {}),
  });

  if (values['dry-run']) {
    // The cluster part of the preflight only reads: it runs once, and its findings come above the plans.
    const first = request(addresses[0] as string);
    let read: Awaited<ReturnType<typeof dryRunFindings>>;
    try {
      read = await dryRunFindings(first);
    } catch (err) {
      warn(userMessage(err, cluster.context));
      return EXIT.USAGE;
    } finally {
      first.host.close();
    }
    if (read.findings.length > 0) out(`Cluster preflight (read only):\n${formatFindings(read.findings)}\n`);
    const failed = blocking(read.findings).length > 0;
    for (const address of addresses) {
      const r = request(address, read.planned);
      out(renderPlan(joinPlan(r)));
      r.host.close();
    }
    if (failed) warn('the cluster preflight found problems (✗ above): the join would stop at its preflight step');
    return failed ? EXIT.FAILED : EXIT.OK;
  }

  const prefix = addresses.length > 1;
  return withCancel('the plans stop; each says what it leaves in the cluster and on the host', async (signal) => {
    const results = await runBounded(addresses, concurrency, async (address) => {
      const r = request(address);
      const p = joinPlan(r);
      try {
        return await p.run({
          signal,
          onEvent: (e) => {
            const line = progressLine(prefix ? address : '', e, 'joined');
            if (line) out(line);
          },
        });
      } finally {
        r.host.close();
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
    if (addresses.length > 1)
      process.stdout.write(
        `\n${addresses.length - failed} of ${addresses.length} hosts joined:\n${summary.join('\n')}\n`,
      );
    // Hosts already joined are checked and skipped by the same command: one line to resume them all.
    const stopped = results.find((r) => r.ok && r.value.outcome !== 'done');
    const resume = stopped?.ok ? resumeLine(stopped.value) : undefined;
    if (resume) warn(resume);
    return failed === 0 ? EXIT.OK : EXIT.FAILED;
  });
}

/** `containerd=https://…#sha256=<hex>` values of --payload-url. */
function payloadUrls(values: string[]): Record<string, { url: string; sha256: string }> {
  const urls: Record<string, { url: string; sha256: string }> = {};
  for (const v of values) {
    const m = /^(containerd|kubelet|kubeadm)=(.+)#sha256=([0-9a-fA-F]{64})$/.exec(v);
    if (!m)
      throw new UsageError(
        `--payload-url takes NAME=URL#sha256=HEX with NAME containerd, kubelet or kubeadm (got "${JSON.stringify(v).slice(1, -1)}")`,
      );
    urls[m[1] as string] = { url: m[2] as string, sha256: (m[3] as string).toLowerCase() };
  }
  return urls;
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
  const { values, positionals } = parseCommand(REMOVE_COMMAND, args);
  if (values.help) {
    process.stdout.write(commandHelp(REMOVE_COMMAND));
    return EXIT.OK;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (!values.address) throw new UsageError('--address is required');
  const chosenVia = oneOf('via', values.via, VIA);
  const wmco = wmcoOptions(values);
  const ssh = sshOptions(values);
  const pollMs = positiveInteger('poll-interval', values['poll-interval']);
  const cluster = clusterFor(values);
  const address = values.address;
  return withCancel('the plan stops and says what it leaves', async (signal) => {
    let host;
    try {
      const via = chosenVia ?? (await detectVia(cluster.kube, signal));
      // kubeadm: with SSH options, `kubeadm reset` runs on the host before the Node is deleted.
      host = via === 'kubeadm' && ssh.given ? hostFor(address, ssh) : undefined;
      const r = await removePlanFor(
        {
          kube: cluster.kube,
          via,
          address,
          wmco,
          ...(values.node ? { nodeName: values.node } : {}),
          ...(host ? { host } : {}),
          ...(pollMs ? { pollMs } : {}),
        },
        signal,
      );
      if (values['dry-run']) {
        out(renderPlan(r));
        return EXIT.OK;
      }
      const result = await r.run({
        signal,
        onEvent: (e) => {
          const line = progressLine('', e, 'removed');
          if (line) out(line);
        },
      });
      return result.outcome === 'done' ? EXIT.OK : EXIT.FAILED;
    } catch (err) {
      if (signal.aborted) throw err;
      warn(userMessage(err, cluster.context));
      return EXIT.USAGE;
    } finally {
      host?.close();
    }
  });
}
