// Kubernetes API emulator: a test double served over HTTPS on loopback, because no kube-apiserver runs
// on the machines that run these tests. Test-only: nothing under src/ may import it.
export { startEmulator, statusObject, KUBE_VERSION } from './kube-emulator/server';
export { RESOURCES, resourceByKind, type ResourceInfo } from './kube-emulator/resources';
export type {
  Emulator,
  EmulatorEvent,
  EmulatorOptions,
  ExecRecord,
  ExecSession,
  Fault,
  KubeObject,
  RequestLogEntry,
  DenyRule,
} from './kube-emulator/types';
