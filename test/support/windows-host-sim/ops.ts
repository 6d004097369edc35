// What each kube-windows op does to the simulated Windows machine, mirroring the PowerShell bodies in
// src/core/windows/host-ops.ts line by line: same checks, same order, same result hashtable, same
// error messages where the script throws its own.
import type { PsLiteral } from './script';
import {
  findService,
  joinPath,
  leafOf,
  normalisePath,
  parentOf,
  sha256,
  SimFs,
  type SimHostState,
  type SimService,
} from './state';

export interface KubeadmExpectation {
  /** The token, or a check of it (e.g. against the bootstrap-token Secrets in the API emulator). */
  token: string | ((token: string) => boolean | Promise<boolean>);
  /** sha256:<hex>. */
  caCertHash: string;
  /** host:port. */
  endpoint: string;
}

export interface OpContext {
  state: SimHostState;
  user: string;
  /** Whether the connected user is in the Administrators group. */
  isAdministrator: boolean;
  expectedJoin?: KubeadmExpectation;
  onKubeadmJoin?: (info: { nodeName: string; build: string }) => void | Promise<void>;
  /** Archive file name (case-insensitive) → files it unpacks to (relative paths). */
  archiveContents: Map<string, Record<string, string | Buffer>>;
  /** Schedules the reboot; false when one is already scheduled. */
  scheduleReboot(): boolean;
}

/** A thrown PowerShell error: exit code 1, message on stderr (what wrapScript does). */
export class OpError extends Error {}

export type OpResult = Record<string, unknown>;

const str = (params: Record<string, PsLiteral>, name: string): string => {
  const v = params[name];
  if (typeof v !== 'string')
    throw new OpError(`The variable '$${name}' cannot be retrieved because it has not been set.`);
  return v;
};
const num = (params: Record<string, PsLiteral>, name: string): number => {
  const v = params[name];
  if (typeof v !== 'number')
    throw new OpError(`The variable '$${name}' cannot be retrieved because it has not been set.`);
  return v;
};
const strArray = (params: Record<string, PsLiteral>, name: string): string[] => {
  const v = params[name];
  // PowerShell's foreach over a scalar iterates once: accept both, as the script would.
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.map((x) => String(x));
};

/** Get-FileHash -LiteralPath: fails (terminating, under ErrorActionPreference Stop) when absent. */
function fileHash(fs: SimFs, path: string): string {
  if (!fs.isFile(path)) throw new OpError(`Cannot find path '${normalisePath(path)}' because it does not exist.`);
  return sha256(fs.read(path));
}

const KUBELET_CONFIG = 'C:\\var\\lib\\kubelet\\config.yaml';
const KUBELET_KUBECONFIG = 'C:\\etc\\kubernetes\\kubelet.conf';
const KUBEADM_FLAGS = 'C:\\var\\lib\\kubelet\\kubeadm-flags.env';

/** The executable a service command line starts (quoted or up to .exe). */
function serviceExe(binaryPathName: string): string {
  const t = binaryPathName.trim();
  if (t.startsWith('"')) return t.slice(1, t.indexOf('"', 1));
  const m = /^(.*?\.exe)(\s|$)/i.exec(t);
  return m ? m[1]! : t.split(/\s+/)[0]!;
}

/** Starts a service and its dependencies, as the SCM does; fails like Start-Service. */
export function startServiceNamed(state: SimHostState, fs: SimFs, name: string, seen = new Set<string>()): SimService {
  const found = findService(state, name);
  if (!found) throw new OpError(`Cannot find any service with service name '${name}'.`);
  const [n, s] = found;
  if (s.status === 'Running') return s;
  if (seen.has(n.toLowerCase())) return s;
  seen.add(n.toLowerCase());
  const cannot = `Service '${s.displayName ?? n} (${n})' cannot be started due to the following error: Cannot start service ${n} on computer '.'.`;
  if (s.startType === 'Disabled') throw new OpError(cannot);
  for (const d of s.dependsOn) {
    if (!findService(state, d)) throw new OpError(cannot);
    startServiceNamed(state, fs, d, seen);
  }
  const exe = serviceExe(s.binaryPathName);
  if (/^[A-Za-z]:\\/.test(exe) && !fs.isFile(exe)) throw new OpError(cannot);
  // The kubelet exits at once without the configuration kubeadm join writes; the SCM then reports it
  // never reached Running.
  if (n.toLowerCase() === 'kubelet' && !fs.isFile(KUBELET_CONFIG))
    throw new OpError(`Failed to start service '${s.displayName ?? n} (${n})'. The service did not start.`);
  s.status = 'Running';
  return s;
}

/** Stop-Service -Force: dependents stop first. */
function stopServiceNamed(state: SimHostState, name: string): void {
  for (const [n, s] of state.services)
    if (s.dependsOn.some((d) => d.toLowerCase() === name.toLowerCase()) && s.status !== 'Stopped')
      stopServiceNamed(state, n);
  const found = findService(state, name);
  if (found) found[1].status = 'Stopped';
}

function kubeadmFailure(lines: string[]): OpResult {
  return {
    exitCode: 1,
    output: [...lines, 'To see the stack trace of this error execute with --v=5 or higher', ''].join('\r\n'),
  };
}

export async function runOp(ctx: OpContext, name: string, p: Record<string, PsLiteral>): Promise<OpResult> {
  const { state } = ctx;
  const fs = new SimFs(state);
  switch (name) {
    case 'host-facts': {
      const svc = (n: string): string | null => findService(state, n)?.[1].status ?? null;
      return {
        hostname: state.hostname,
        fqdn: state.domain ? `${state.hostname}.${state.domain}` : '',
        build: state.build,
        ubr: state.ubr,
        productName: state.productName,
        containersFeature: state.containersFeature,
        rebootPending: state.rebootPending,
        adapters: state.adapters.filter((a) => a.ipv4.length > 0).map((a) => ({ name: a.name, ipv4: [...a.ipv4] })),
        defaultRouteIPv4: state.defaultRouteIPv4,
        services: { docker: svc('docker'), containerd: svc('containerd'), kubelet: svc('kubelet') },
        isAdministrator: ctx.isAdministrator,
      };
    }
    case 'authorized-keys': {
      const files = [
        'C:\\ProgramData\\ssh\\administrators_authorized_keys',
        `C:\\Users\\${ctx.user}\\.ssh\\authorized_keys`,
      ];
      const keys: string[] = [];
      for (const f of files) {
        if (!fs.isFile(f)) continue;
        // administrators_authorized_keys is readable by Administrators and SYSTEM only (its ACL).
        if (f.startsWith('C:\\ProgramData') && !ctx.isAdministrator)
          throw new OpError(`Access to the path '${f}' is denied.`);
        for (const line of fs.read(f).toString('utf8').split(/\r?\n/))
          if (line && !line.startsWith('#')) keys.push(line);
      }
      return { keys };
    }
    case 'resolve-name': {
      const n = str(p, 'Name');
      if (/^\d{1,3}(\.\d{1,3}){3}$/.test(n)) return { addresses: [n] };
      const own = [state.hostname, state.domain ? `${state.hostname}.${state.domain}` : '']
        .filter((x) => x)
        .map((x) => x.toLowerCase());
      if (own.includes(n.toLowerCase())) return { addresses: state.adapters.flatMap((a) => a.ipv4) };
      const a = state.dns.get(n.toLowerCase().replace(/\.$/, ''));
      if (!a || a.length === 0) return { addresses: [], error: 'No such host is known' };
      return { addresses: [...a] };
    }
    case 'file-hash': {
      const path = str(p, 'Path');
      if (!fs.isFile(path)) return { exists: false, sha256: null };
      return { exists: true, sha256: sha256(fs.read(path)) };
    }
    case 'commit-upload': {
      const temp = str(p, 'Temp');
      const path = str(p, 'Path');
      const expected = str(p, 'Sha256');
      const actual = fileHash(fs, temp);
      if (actual !== expected) {
        fs.remove(temp);
        throw new OpError(
          `The uploaded file is corrupt (SHA-256 ${actual}, expected ${expected}); it was deleted and ${path} was left as it was.`,
        );
      }
      fs.move(temp, path);
      const dir = parentOf(path) ?? path;
      const leaf = leafOf(path);
      for (const c of fs.children(dir))
        if (!c.directory && c.name.startsWith(leaf + '.kw-') && c.name.endsWith('.tmp')) fs.remove(c.path);
      return { moved: true };
    }
    case 'read-text-file': {
      const path = str(p, 'Path');
      if (!fs.isFile(path)) return { exists: false, text: '' };
      const data = fs.read(path);
      if (data.length > 1048576) throw new OpError(`${path} is larger than 1 MB`);
      // Get-Content -Raw: a UTF-8 BOM is consumed; an empty file gives $null, i.e. ''.
      const text = data.toString('utf8').replace(/^\uFEFF/, '');
      return { exists: true, text };
    }
    case 'ensure-directories': {
      const created: string[] = [];
      for (const d of strArray(p, 'Paths')) {
        if (!fs.isDir(d)) {
          fs.mkdirp(d);
          created.push(d);
        }
      }
      return { created };
    }
    case 'remove-path':
      return { removed: fs.remove(str(p, 'Path')) };
    case 'expand-archive': {
      const archive = str(p, 'Archive');
      const dest = str(p, 'Destination');
      const expected = str(p, 'Sha256');
      num(p, 'Strip');
      const marker = joinPath(dest, '.kube-windows-archive.sha256');
      if (fs.isFile(marker) && fs.read(marker).toString('ascii').trim() === expected) return { changed: false };
      fs.mkdirp(dest);
      if (!fs.isFile(archive)) throw new OpError(`tar.exe could not unpack ${archive} (exit code 1)`);
      const leaf = leafOf(archive).toLowerCase();
      const contents =
        [...ctx.archiveContents].find(([n]) => n.toLowerCase() === leaf)?.[1] ??
        (leaf.includes('containerd')
          ? { 'containerd.exe': 'MZ containerd', 'containerd-shim-runhcs-v1.exe': 'MZ containerd-shim-runhcs-v1' }
          : {});
      for (const [rel, data] of Object.entries(contents)) {
        const target = joinPath(dest, rel);
        const parent = parentOf(target);
        if (parent) fs.mkdirp(parent);
        fs.write(target, Buffer.isBuffer(data) ? data : Buffer.from(data));
      }
      // Set-Content -Encoding ascii writes the value and a CRLF.
      fs.write(marker, Buffer.from(expected + '\r\n', 'ascii'));
      return { changed: true };
    }
    case 'download-file': {
      const url = str(p, 'Url');
      const path = str(p, 'Path');
      const expected = str(p, 'Sha256');
      if (fs.isFile(path) && sha256(fs.read(path)) === expected) return { changed: false };
      const temp = path + '.kw-download.tmp';
      const body = state.urls.get(url);
      if (!body) throw new OpError('The remote server returned an error: (404) Not Found.');
      fs.write(temp, body);
      const actual = sha256(body);
      if (actual !== expected) {
        fs.remove(temp);
        throw new OpError(`The download from ${url} has SHA-256 ${actual}, expected ${expected}; it was deleted.`);
      }
      fs.move(temp, path);
      return { changed: true };
    }
    case 'enable-containers-feature': {
      if (state.containersFeature === 'Enabled') return { changed: false, restartNeeded: false };
      state.containersFeature = 'EnablePending';
      state.rebootPending = true;
      return { changed: true, restartNeeded: true };
    }
    case 'restart-computer': {
      num(p, 'DelaySeconds');
      // shutdown.exe /r refuses a second schedule: "A system shutdown has already been scheduled.(1190)".
      if (!ctx.scheduleReboot()) throw new OpError('shutdown.exe failed with exit code 1190');
      return { scheduled: true };
    }
    case 'service-state': {
      const found = findService(state, str(p, 'Name'));
      if (!found) return { exists: false, status: null, startType: null, binaryPathName: null };
      const s = found[1];
      return { exists: true, status: s.status, startType: s.startType, binaryPathName: s.binaryPathName };
    }
    case 'ensure-service': {
      const n = str(p, 'Name');
      const binaryPathName = str(p, 'BinaryPathName');
      const dependsOn = strArray(p, 'DependsOn');
      const found = findService(state, n);
      if (!found) {
        state.services.set(n, {
          status: 'Stopped',
          startType: 'Auto',
          binaryPathName,
          dependsOn,
          description: str(p, 'Description'),
          displayName: str(p, 'DisplayName'),
        });
        return { created: true, changed: true };
      }
      const s = found[1];
      if (s.binaryPathName !== binaryPathName) {
        // sc.exe config: command line, dependencies and start type only (description stays).
        s.binaryPathName = binaryPathName;
        s.dependsOn = dependsOn;
        s.startType = 'Auto';
        return { created: false, changed: true };
      }
      return { created: false, changed: false };
    }
    case 'start-service':
      return { status: startServiceNamed(state, fs, str(p, 'Name')).status };
    case 'remove-service': {
      const found = findService(state, str(p, 'Name'));
      if (!found) return { removed: false };
      if (found[1].status !== 'Stopped') stopServiceNamed(state, found[0]);
      state.services.delete(found[0]);
      return { removed: true };
    }
    case 'ensure-firewall-rule': {
      const n = str(p, 'Name');
      const port = num(p, 'Port');
      if ([...state.firewallRules.keys()].some((k) => k.toLowerCase() === n.toLowerCase())) return { changed: false };
      state.firewallRules.set(n, { port });
      return { changed: true };
    }
    case 'executable-version': {
      // A Go binary carries its version as the string the build linked in
      // (-X k8s.io/component-base/version.gitVersion=v1.31.3); the test payloads carry that string.
      const exe = str(p, 'Exe');
      if (!fs.isFile(exe)) return { exists: false, output: '' };
      const version = /gitVersion=(v\d+\.\d+\.\d+[0-9A-Za-z.+-]*)/.exec(fs.read(exe).toString('latin1'))?.[1];
      const argv = strArray(p, 'Argv');
      if (!version)
        return {
          exists: true,
          output: `Program '${leafOf(exe)}' failed to run: The specified executable is not a valid application for this OS platform.\r\n`,
        };
      return { exists: true, output: argv[0] === 'version' ? `${version}\r\n` : `Kubernetes ${version}\r\n` };
    }
    case 'kubeadm-join':
      return kubeadmJoin(ctx, fs, p);
    case 'kubeadm-reset': {
      const kubeadm = str(p, 'Kubeadm');
      if (!fs.isFile(kubeadm)) return { exitCode: 0, output: '' };
      if (findService(state, 'kubelet')) stopServiceNamed(state, 'kubelet');
      for (const f of [
        KUBELET_CONFIG,
        KUBELET_KUBECONFIG,
        KUBEADM_FLAGS,
        'C:\\etc\\kubernetes\\bootstrap-kubelet.conf',
      ])
        fs.remove(f);
      const output = [
        '[preflight] Running pre-flight checks',
        '[reset] Deleted contents of the etcd data directory: C:\\var\\lib\\etcd',
        '[reset] Stopping the kubelet service',
        '[reset] Deleting files: [C:\\etc\\kubernetes\\kubelet.conf C:\\etc\\kubernetes\\bootstrap-kubelet.conf]',
        '',
        'The reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d',
        '',
      ].join('\r\n');
      return { exitCode: 0, output };
    }
    default: {
      const extra = EXTRA_OPS.get(name);
      if (extra) return extra(ctx, fs, p);
      throw new OpError(`unknown op: ${name}`);
    }
  }
}

/** An op defined outside this file (mirrors, node operations): same context, file system and parameters. */
export type SimOp = (ctx: OpContext, fs: SimFs, p: Record<string, PsLiteral>) => Promise<OpResult> | OpResult;

const EXTRA_OPS = new Map<string, SimOp>();

/** Registers the simulation of an op defined in another module of src/core/windows. */
export function registerSimOp(name: string, run: SimOp): void {
  EXTRA_OPS.set(name, run);
}

async function kubeadmJoin(ctx: OpContext, fs: SimFs, p: Record<string, PsLiteral>): Promise<OpResult> {
  const { state } = ctx;
  const kubeadm = str(p, 'Kubeadm');
  const endpoint = str(p, 'Endpoint');
  const token = str(p, 'Token');
  const caCertHash = str(p, 'CaCertHash');
  const nodeName = str(p, 'NodeName');
  if (!fs.isFile(kubeadm)) {
    throw new OpError(
      `The term '${kubeadm}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`,
    );
  }
  const preflight = ['[preflight] Running pre-flight checks'];
  const errors: string[] = [];
  if (fs.isFile(KUBELET_KUBECONFIG))
    errors.push('\t[ERROR FileAvailable--etc-kubernetes-kubelet.conf]: /etc/kubernetes/kubelet.conf already exists');
  if (findService(state, 'containerd')?.[1].status !== 'Running') {
    errors.push(
      '\t[ERROR CRI]: container runtime is not running: output: time="2026-11-21T09:00:00Z" level=fatal msg="validate service connection: validate CRI v1 runtime API for endpoint \\"npipe:////./pipe/containerd-containerd\\": rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing: open \\\\\\\\\\\\\\\\.\\\\\\\\pipe\\\\\\\\containerd-containerd: The system cannot find the file specified.\\""',
    );
  }
  if (errors.length > 0) {
    return kubeadmFailure([
      ...preflight,
      'error execution phase preflight: [preflight] Some fatal errors occurred:',
      ...errors,
      '[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`',
    ]);
  }
  const exp = ctx.expectedJoin;
  if (!exp || exp.endpoint !== endpoint) {
    return kubeadmFailure([
      ...preflight,
      `error execution phase preflight: couldn't validate the identity of the API Server: Get "https://${endpoint}/api/v1/namespaces/kube-public/configmaps/cluster-info?timeout=10s": dial tcp ${endpoint}: connectex: No connection could be made because the target machine actively refused it.`,
    ]);
  }
  const tokenId = token.split('.')[0] ?? '';
  const tokenOk = typeof exp.token === 'function' ? await exp.token(token) : exp.token === token;
  if (!tokenOk) {
    return kubeadmFailure([
      ...preflight,
      `error execution phase preflight: couldn't validate the identity of the API Server: could not find a JWS signature in the cluster-info ConfigMap for token ID "${tokenId}"`,
    ]);
  }
  if (exp.caCertHash.toLowerCase() !== caCertHash.toLowerCase()) {
    return kubeadmFailure([
      ...preflight,
      `error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${exp.caCertHash}" are pinned`,
    ]);
  }
  if (!findService(state, 'kubelet')) {
    return kubeadmFailure([
      ...preflight,
      '[kubelet-start] Writing kubelet configuration to file "\\\\var\\\\lib\\\\kubelet\\\\config.yaml"',
      'error execution phase kubelet-start: The specified service does not exist as an installed service.',
    ]);
  }
  for (const d of ['C:\\var\\lib\\kubelet', 'C:\\etc\\kubernetes\\pki']) fs.mkdirp(d);
  fs.write(
    KUBELET_CONFIG,
    Buffer.from(
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nauthentication:\n  x509:\n    clientCAFile: /etc/kubernetes/pki/ca.crt\ncgroupsPerQOS: false\nenforceNodeAllocatable: []\n',
    ),
  );
  fs.write(
    KUBEADM_FLAGS,
    Buffer.from(
      `KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd --hostname-override=${nodeName} --pod-infra-container-image=registry.k8s.io/pause:3.10"\n`,
    ),
  );
  fs.write(
    KUBELET_KUBECONFIG,
    Buffer.from(
      `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://${endpoint}\n  name: default-cluster\nusers:\n- name: default-auth\n  user:\n    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem\n`,
    ),
  );
  startServiceNamed(state, fs, 'kubelet');
  await ctx.onKubeadmJoin?.({ nodeName, build: `10.0.${state.build}` });
  const output = [
    ...preflight,
    '[preflight] Reading configuration from the cluster...',
    "[preflight] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'",
    '[kubelet-start] Writing kubelet configuration to file "\\\\var\\\\lib\\\\kubelet\\\\config.yaml"',
    '[kubelet-start] Writing kubelet environment file with flags to file "\\\\var\\\\lib\\\\kubelet\\\\kubeadm-flags.env"',
    '[kubelet-start] Starting the kubelet',
    '[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap',
    '',
    'This node has joined the cluster:',
    '* Certificate signing request was sent to apiserver and a response was received.',
    '* The Kubelet was informed of the new secure connection details.',
    '',
    "Run 'kubectl get nodes' on the control-plane to see this node join the cluster.",
    '',
  ].join('\r\n');
  return { exitCode: 0, output };
}
