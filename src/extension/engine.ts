// The bootstrap engine as the extension loads it: a separate bundle (dist/engine.js) required on the
// first join/remove command, so activation never pays for ssh2 and the plans. Only re-exports.
export { detectVia, joinPlan, removePlanFor, runAnyPlan } from '../bootstrap/join';
export { resolvePayload } from '../bootstrap/payload';
export { loadKubeconfig, configForContext } from '../cluster/kubeconfig';
export { KubeClient } from '../cluster/client';
export { classifyError } from '../cluster/errors';
export { SshConnector } from '../remote/ssh';
export { WindowsHost } from '../remote/windows-host';
export { loadPrivateKey } from '../remote/keys';
export { RemoteError } from '../remote/types';
export { getNode } from '../cluster/nodes';
export { windowsInstances } from '../cluster/wmco';
export { Secret } from '../bootstrap/plan';
export { renderLog, renderPlan } from '../bootstrap/render';
// Node operations (issue 7): reboot plan, logs, services; runPlan runs the reboot plan.
export {
  buildRebootPlan,
  rebootPlanFor,
  rebootSummary,
  isAwsNode,
  DEFAULT_REBOOT_TIMEOUT_MINUTES,
  type RebootContext,
  type RebootOptions,
  type RebootState,
  type BlockedEviction,
} from '../bootstrap/reboot';
export { collectNodeLogs, DEFAULT_LOG_CAP_BYTES, type CollectLogsOptions, type CollectLogsResult } from '../bootstrap/node-logs';
export { nodeServices, restartNodeService, isNodeService, nodeAddress, NODE_SERVICES, type NodeServiceState } from '../bootstrap/node-services';
export { runPlan, type RunEvent, type RunResult } from '../bootstrap/runner';
// The SSH terminal (issue 7): an interactive shell over SSH, or through a HostProcess pod.
export { openSshSession, type InteractiveSession } from '../remote/interactive';
export { openPodShell } from '../cluster/pod-shell';
export { drainTargets, podsWithEmptyDir } from '../bootstrap/reboot';
// Registry mirrors (issue 6): diff, apply and preview over the Windows nodes.
export {
  mirrorsApply,
  mirrorsDiff,
  mirrorsRenderOnly,
  mirrorObjectsOfText,
  mirrorsPreviewText,
  resultTable as mirrorResultTable,
  DEFAULT_MIRROR_CONCURRENCY,
  type MirrorsOutcome,
  type MirrorTarget,
  type MirrorsRequest,
} from '../bootstrap/mirrors-apply';
