// A kubeconfig with 30 contexts, some broken, as people who keep a dozen clusters meet them:
// 20 healthy (10 on the real kube-apiserver, admin and restricted users; 10 on two API emulators,
// OpenShift and plain Kubernetes), 5 whose address takes connections and never answers (3 at TCP, the
// TLS handshake never completing; 2 completing TLS and never answering HTTP: silent-server.ts), 3 with
// expired credentials (a token the real server rejects with 401, one the emulator rejects, a client
// certificate signed by the real server's CA that expired), 2 whose CA does not match the server's
// certificate. The current context is a never-answering one: the view opens with it expanded. Test-only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateCerts } from './kube-emulator/certs';
import { startEmulator, type Emulator } from './kube-api-emulator';
import { mixedCluster, namespace, windowsNode } from './kube-seed';
import type { RealApiServer } from './real-apiserver';
import { startSilentServer, type SilentServer } from './silent-server';

export type ClusterKind = 'healthy' | 'silent-tcp' | 'silent-tls' | 'rejected-token' | 'expired-cert' | 'wrong-ca';

export interface ManyClusterContext {
  name: string;
  kind: ClusterKind;
  server: string;
}

export interface ManyClusters {
  kubeconfigPath: string;
  contexts: ManyClusterContext[];
  current: string;
  /** The never-answering servers, by context name. */
  silent: Map<string, SilentServer>;
  /** The real API server's port (a 'tcp' silent server answers by piping to it). */
  realPort: number;
  emulators: Emulator[];
  stop(): Promise<void>;
}

/** The one-line cause each broken kind shows in the tree (a view timeout of `timeoutS` seconds). */
export function expectedCause(kind: ClusterKind, timeoutS: number): RegExp {
  switch (kind) {
    case 'silent-tcp':
    case 'silent-tls':
      return new RegExp(`^No answer: timeout after ${timeoutS} s$`);
    case 'rejected-token':
      return /^Credentials expired or rejected \(401\)$/;
    case 'expired-cert':
      return /^Credentials expired: the client certificate expired on 2025-01-02$/;
    case 'wrong-ca':
      return /^Certificate not trusted: the CA does not match$/;
    case 'healthy':
      return /^$/;
  }
}

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.error?.message ?? r.stderr}`);
}

/**
 * A client certificate for `user` valid on 2025-01-01 only, signed by the CA in `pki` (the real server's
 * ca.crt and ca.key, which scripts/apiserver.mjs keeps beside its kubeconfig) or by a CA made here.
 */
function expiredClientCert(dir: string, pki: string | undefined, user: string): { cert: string; key: string } {
  const work = join(dir, 'expired-cert');
  mkdirSync(join(work, 'db'), { recursive: true });
  writeFileSync(join(work, 'db', 'index.txt'), '');
  writeFileSync(join(work, 'db', 'serial'), '01\n');
  writeFileSync(
    join(work, 'ca.cnf'),
    '[ ca ]\ndefault_ca = c\n[ c ]\ndatabase = db/index.txt\nnew_certs_dir = db\nserial = db/serial\ndefault_md = sha256\npolicy = p\nunique_subject = no\n[ p ]\ncommonName = supplied\norganizationName = optional\n',
  );
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  let ca = pki && existsSync(join(pki, 'ca.key')) ? { crt: join(pki, 'ca.crt'), key: join(pki, 'ca.key') } : undefined;
  if (!ca) {
    openssl(
      ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=other-ca'],
      work,
    );
    ca = { crt: join(work, 'ca.crt'), key: join(work, 'ca.key') };
  }
  openssl(
    ['req', '-new', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', `/O=system:masters/CN=${user}`],
    work,
  );
  // `openssl ca` takes the validity as dates: a certificate that expired on 2025-01-02.
  openssl(
    [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-cert',
      ca.crt,
      '-keyfile',
      ca.key,
      '-in',
      'client.csr',
      '-out',
      'client.crt',
      '-startdate',
      '20250101000000Z',
      '-enddate',
      '20250102000000Z',
    ],
    work,
  );
  return { cert: readFileSync(join(work, 'client.crt'), 'utf8'), key: readFileSync(join(work, 'client.key'), 'utf8') };
}

export async function startManyClusters(options: { dir: string; api: RealApiServer }): Promise<ManyClusters> {
  const { dir, api } = options;
  mkdirSync(dir, { recursive: true });
  const openshift = await startEmulator({ objects: mixedCluster(), openshift: true });
  const plain = await startEmulator({
    objects: [
      namespace('default'),
      windowsNode('win-plain-1', { build: '10.0.20348', unmanaged: true }),
      windowsNode('win-plain-2', { build: '10.0.17763', unmanaged: true }),
    ],
    openshift: false,
  });
  const silent = new Map<string, SilentServer>();
  const clusters: Record<string, unknown>[] = [];
  const users: Record<string, unknown>[] = [];
  const contexts: ManyClusterContext[] = [];
  const add = (
    name: string,
    kind: ClusterKind,
    server: string,
    caPem: string | Buffer,
    user: Record<string, unknown>,
  ) => {
    clusters.push({ name, cluster: { server, 'certificate-authority-data': b64(caPem) } });
    users.push({ name, user });
    contexts.push({ name, kind, server });
  };
  const healthy: (() => void)[] = [];
  for (let i = 1; i <= 8; i++)
    healthy.push(() => add(`real-admin-${i}`, 'healthy', api.server, api.ca, { token: api.adminToken }));
  for (let i = 1; i <= 2; i++)
    healthy.push(() => add(`real-restricted-${i}`, 'healthy', api.server, api.ca, { token: api.restrictedToken }));
  for (let i = 1; i <= 5; i++) {
    healthy.push(() =>
      add(`emulated-openshift-${i}`, 'healthy', openshift.url, openshift.caPem, { token: openshift.token }),
    );
    healthy.push(() => add(`emulated-kubernetes-${i}`, 'healthy', plain.url, plain.caPem, { token: plain.token }));
  }
  const broken: (() => Promise<void> | void)[] = [];
  for (let i = 1; i <= 3; i++)
    broken.push(async () => {
      const s = await startSilentServer('tcp');
      silent.set(`silent-tcp-${i}`, s);
      // The real server's CA and token: once it answers (piped to the real server), the context works.
      add(`silent-tcp-${i}`, 'silent-tcp', s.url, api.ca, { token: api.adminToken });
    });
  for (let i = 1; i <= 2; i++)
    broken.push(async () => {
      const s = await startSilentServer('tls');
      silent.set(`silent-tls-${i}`, s);
      add(`silent-tls-${i}`, 'silent-tls', s.url, s.caPem ?? '', { token: 'never-read' });
    });
  broken.push(() => add('rejected-token-real', 'rejected-token', api.server, api.ca, { token: 'expired-0123456789' }));
  broken.push(() =>
    add('rejected-token-emulated', 'rejected-token', openshift.url, openshift.caPem, { token: 'revoked-0123456789' }),
  );
  broken.push(() => {
    const { cert, key } = expiredClientCert(dir, join(dirname(api.kubeconfigPath), 'pki'), 'kube-windows-expired');
    add('expired-cert-real', 'expired-cert', api.server, api.ca, {
      'client-certificate-data': b64(cert),
      'client-key-data': b64(key),
    });
  });
  broken.push(() => add('wrong-ca-real', 'wrong-ca', api.server, openshift.caPem, { token: api.adminToken }));
  broken.push(() => add('wrong-ca-emulated', 'wrong-ca', plain.url, generateCerts().caPem, { token: plain.token }));
  // Interleaved: a broken context after every two healthy ones, the first broken one first (the current).
  await broken[0]();
  for (let h = 0, b = 1; h < healthy.length || b < broken.length;) {
    if (h < healthy.length) healthy[h++]();
    if (h < healthy.length) healthy[h++]();
    if (b < broken.length) await broken[b++]();
  }
  const current = contexts[0].name;
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters,
    users,
    contexts: contexts.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name, namespace: 'default' } })),
    'current-context': current,
    preferences: {},
  };
  const kubeconfigPath = join(dir, 'kubeconfig-30');
  writeFileSync(kubeconfigPath, JSON.stringify(kubeconfig, null, 1), { mode: 0o600 });
  return {
    kubeconfigPath,
    contexts,
    current,
    silent,
    realPort: Number(new URL(api.server).port),
    emulators: [openshift, plain],
    stop: async () => {
      await Promise.all([...silent.values()].map((s) => s.stop()));
      await Promise.all([openshift.stop(), plain.stop()]);
    },
  };
}
