// A simulated Windows Server host reachable over SSH on loopback: the test double the bootstrap engine
// runs against where no Windows machine exists. Runs only kube-windows ops (host-ops.ts) and SFTP,
// against in-memory Windows state. Test-only: nothing under src/ may import it.
export {
  startWindowsHostSim,
  type SimHost,
  type SimHostKey,
  type SimHostOptions,
  type FaultOptions,
} from './windows-host-sim/server';
export {
  normalisePath,
  sha256,
  SimFs,
  findService,
  type SimHostState,
  type SimService,
  type SimOpRecord,
  type SimHostInit,
} from './windows-host-sim/state';
export { readCommand, literalValue, CommandRejected, type PsLiteral, type ParsedOp } from './windows-host-sim/script';
export type { KubeadmExpectation, SimOp, OpContext, OpResult } from './windows-host-sim/ops';
export { registerSimOp, OpError } from './windows-host-sim/ops';
/** The same as startWindowsHostSim. */
export { startWindowsHostSim as start } from './windows-host-sim/server';
// The simulations of the node-operation ops (services, reboot, logs) register themselves on import.
export { simNode, type SimNodeState } from './windows-host-sim/node-ops';
// The simulations of the registry mirror ops (hosts.toml trees, containerd config_path) register themselves on import.
export { simTree, moveDirectory } from './windows-host-sim/mirror-ops';
// The simulations of the proxy ops (machine and service environment, root store, reach through a proxy) register themselves on import.
export { simProxy, setMachineEnv, type SimProxyState } from './windows-host-sim/proxy-ops';
