// Every PowerShell op the engine can build, with sample parameters: for the parse checks (each
// script must parse as PowerShell) and the simulated host's tests. Test data, kept out of src/.
import type { HostOp } from '../../src/core/windows/host-ops';
import {
  authorizedKeys,
  commitUpload,
  downloadFile,
  enableContainersFeature,
  ensureDirectories,
  ensureFirewallRule,
  ensureService,
  expandArchive,
  fileHash,
  hostFacts,
  executableVersion,
  kubeadmJoin,
  kubeadmReset,
  readTextFile,
  removePath,
  removeService,
  resolveName,
  restartComputer,
  serviceState,
  startService,
} from '../../src/core/windows/host-ops';
import {
  addMetadataRoute,
  lastBootTime,
  listLogFiles,
  metadataRouteState,
  nodeServicesState,
  restartService,
  systemEventErrors,
} from '../../src/core/windows/node-ops';
import {
  clearStaging,
  ensureConfigPath,
  readHostsTree,
  rollbackHostsTree,
  swapHostsTree,
} from '../../src/core/windows/mirror-ops';
import { nodeProxyEnvironment, reachThroughProxy, setServiceProxyEnvironment } from '../../src/core/windows/proxy-ops';

/** The join and host ops (host-ops.ts). */
export function sampleOps(sample: string): HostOp<unknown>[] {
  return [
    hostFacts(),
    authorizedKeys(),
    resolveName(sample),
    fileHash(sample),
    readTextFile(sample),
    commitUpload(sample + '.kw-1.tmp', sample, 'ab'.repeat(32)),
    ensureDirectories([sample, sample + '\\x']),
    removePath(sample),
    expandArchive(sample, sample, 'cd'.repeat(32), 1),
    downloadFile(sample, sample, 'ef'.repeat(32)),
    enableContainersFeature(),
    restartComputer(),
    serviceState(sample),
    ensureService({
      name: sample,
      binaryPathName: sample,
      displayName: sample,
      description: sample,
      dependsOn: [sample],
    }),
    startService(sample),
    removeService(sample),
    ensureFirewallRule(sample, 10250),
    kubeadmJoin({
      kubeadmPath: sample,
      apiServerEndpoint: sample,
      token: 'abcdef.0123456789abcdef',
      caCertHash: 'sha256:' + '0'.repeat(64),
      nodeName: sample,
      criSocket: sample,
    }),
    kubeadmReset(sample),
    executableVersion(sample, [sample, '--version']),
  ];
}

/** The node operations' ops (node-ops.ts). */
export function sampleNodeOps(sample: string): HostOp<unknown>[] {
  return [
    nodeServicesState([sample, sample]),
    restartService(sample),
    lastBootTime(),
    metadataRouteState(),
    addMetadataRoute(sample, 3),
    listLogFiles([sample]),
    systemEventErrors(200),
    nodeProxyEnvironment([sample], [sample]),
    setServiceProxyEnvironment(sample, { HTTP_PROXY: sample, NO_PROXY: sample }),
    reachThroughProxy(sample, [sample]),
  ];
}

/** The mirror push ops (mirror-ops.ts). */
export function sampleMirrorOps(sample: string): HostOp<unknown>[] {
  const manifest = [
    { path: sample, sha256: 'ab'.repeat(32) },
    { path: `${sample}\\hosts.toml`, sha256: 'cd'.repeat(32) },
  ];
  return [
    readHostsTree(sample),
    swapHostsTree(sample, sample, manifest),
    swapHostsTree(sample, 'abc', manifest.slice(0, 1)),
    swapHostsTree(sample, 'abc', []),
    rollbackHostsTree(sample, sample),
    clearStaging(sample),
    ensureConfigPath(sample, sample, sample),
  ];
}
