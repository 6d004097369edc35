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
export { getNode, windowsInstances } from '../bootstrap/cluster-api';
export { Secret } from '../bootstrap/plan';
export { renderLog, renderPlan } from '../bootstrap/render';
