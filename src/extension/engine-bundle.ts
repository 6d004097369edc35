// The bootstrap engine as the extension loads it: a separate bundle (dist/engine.js) required on the
// first join/remove command, so activation never pays for ssh2 and the plans. Only re-exports.
export { detectVia, dryRunFindings, joinPlan, removePlanFor } from '../bootstrap/join';
export { resolvePayload } from '../bootstrap/payload';
export { loadKubeconfig } from '../cluster/kubeconfig';
export { openCluster } from '../cluster/open';
export { userMessage } from '../cluster/errors';
export { SshConnector } from '../remote/ssh';
export { WindowsHost } from '../remote/windows-host';
export { loadPrivateKey } from '../remote/keys';
export { getNode } from '../cluster/nodes';
export { windowsInstances } from '../cluster/wmco';
export { Secret } from '../bootstrap/plan';
export { renderLog, renderPlan } from '../bootstrap/render';
// Node operations: the graceful reboot plan (a prepared plan: shown by renderPlan, run by its run()), log collection,
// the node services.
export {
  rebootPlanFor,
  rebootSummary,
  isAwsNode,
  DEFAULT_REBOOT_TIMEOUT_MINUTES,
  type RebootContext,
  type RebootOptions,
  type RebootState,
  type BlockedEviction,
} from '../bootstrap/reboot';
export {
  collectNodeLogs,
  DEFAULT_LOG_CAP_BYTES,
  type CollectLogsOptions,
  type CollectLogsResult,
} from '../bootstrap/node-logs';
export {
  nodeServices,
  quietNodeServices,
  restartNodeService,
  isNodeService,
  nodeAddress,
  NODE_SERVICES,
  type NodeServiceState,
} from '../bootstrap/node-services';
export type { RunEvent, RunResult } from '../bootstrap/runner';
// The node terminal: an interactive PowerShell over SSH, or through a HostProcess pod when SSH fails.
export { openSshSession, type InteractiveSession } from '../remote/interactive';
export { openPodShell } from '../cluster/pod-shell';
export { drainTargets, podsWithEmptyDir } from '../bootstrap/reboot';
// For the pod and node items of the explorer: a container's shell over pods/exec, node
// logs through the node proxy, cordon/uncordon/drain from the reboot plan's steps.
export {
  openContainerShell,
  resolveShellTarget,
  ContainerShellError,
  type ContainerShellOptions,
  type ShellTarget,
} from '../cluster/pod-exec';
export {
  streamNodeLog,
  listNodeLogFolder,
  nodeLogCall,
  NodeLogRefusedError,
  type NodeLogRequest,
} from '../cluster/node-logs';
export { collectNodeLogsOverApi, type CollectApiLogsOptions } from '../bootstrap/node-logs';
export { drainPreview, schedulingPlanFor, schedulingSummary, type SchedulingAction } from '../bootstrap/drain';
// Registry mirrors: diff, apply and preview of the nodes' containerd hosts.toml trees.
export {
  mirrorsApply,
  mirrorsDiff,
  mirrorsRenderOnly,
  mirrorObjectsOfText,
  isWmcoCluster,
  resultTable as mirrorResultTable,
  DEFAULT_MIRROR_CONCURRENCY,
  type MirrorsOutcome,
  type MirrorTarget,
  type MirrorsRequest,
} from '../bootstrap/mirrors-apply';
export { mirrorsApplySummary, mirrorsCase, mirrorsPreviewMarkdown } from '../bootstrap/mirrors-preview';
// Windows MachineSets on OpenShift: create from a Linux worker MachineSet (or an edited draft), follow, scale, delete a
// Machine.
export {
  createWindowsMachineSet,
  creationRefusals,
  machineSetFromText,
  machineSetSources,
  prepareWindowsMachineSet,
  type CreationRefusal,
  type MachineSetSources,
} from '../bootstrap/machineset-create';
export { followMachineSet } from '../bootstrap/machineset-follow';
export { wmcoSetupPlan } from '../bootstrap/wmco-install';
export { deleteMachine, getMachine, getScale, scaleMachineSet } from '../cluster/machinesets';
export { imageHelp, imageProblem, nameProblem, platformTitle } from '../core/openshift/windows-machineset';
export { machineView, scaleConsequence } from '../core/openshift/machine-state';
// Pod and node actions of the explorer: logs, events, describe, delete, rollout restart, taints.
export {
  getPod,
  streamPodLog,
  logContainers,
  podEvents,
  nodeEvents,
  deletePodNamed,
  restartTargetOf,
  restartWorkload,
  setNodeTaints,
} from '../cluster/pod-actions';
export { describePod, describeNodeEvents } from '../core/live/describe';
export { nodeFactsOf } from '../core/live/explain';
export { parseTaints, taintText, taintChanges } from '../core/workload-actions';
// The Windows workload problems view: the live check of a context, grouped by object, with each object's live YAML.
export { ProblemsTree } from '../views/problems-tree';
export { executePolicyApply, preparePolicyApply, type PreparedPolicyApply } from '../cluster/admission-policies';
export { enforceableRules, generatePolicies } from '../core/policy/generate';
export { renderPolicies } from '../core/policy/render';
export { policySummary, resolvePolicyRequest } from '../core/policy/request';
// Proxy-enabled clusters: what the join questions show (the kubeadm NO_PROXY always included, the cluster-wide
// proxy WMCO applies) and "Show proxy settings" (what `kube-windows nodes proxy` runs).
export { byohClusterProxy, kubeadmNoProxyIncluded } from '../bootstrap/join-proxy';
export { nodeProxyText, proxyExpectation, readNodeProxy, readNodeProxyThroughPod } from '../bootstrap/node-proxy';
export { machineSetProxyFindings } from '../bootstrap/proxy-preflight';
export { recordProxySeen } from '../bootstrap/proxy-seen';
export { proxyVerdict } from '../core/proxy/words';
