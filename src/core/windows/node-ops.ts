/**
 * PowerShell ops for operating a joined Windows node: the state of the node services and
 * restarting one, the boot time (to know whether a reboot happened), the AWS instance-metadata
 * route, the log files and the System event log errors. Built with defineOp, so every script has the
 * shape the simulator and the parse tests expect; values are literals, never script text. Pure.
 */
import { defineOp, EMIT, type HostOp } from './host-ops';

/** The services of a Windows node that kube-windows shows and may restart (WMCO's and kubeadm's). */
export const NODE_SERVICES = [
  'kubelet',
  'containerd',
  'kube-proxy',
  'hybrid-overlay-node',
  'windows_exporter',
  'csi-proxy',
  'windows-instance-config-daemon',
] as const;
export type NodeServiceName = (typeof NODE_SERVICES)[number];

export function isNodeService(name: string): name is NodeServiceName {
  return (NODE_SERVICES as readonly string[]).includes(name);
}

export interface NodeServiceState {
  name: string;
  /** false when the service is not installed on this node (e.g. csi-proxy on a node without CSI). */
  exists: boolean;
  /** Get-Service Status: Running, Stopped, StartPending, ... (null when absent). */
  status: string | null;
  /** Automatic, Manual, Disabled (null when absent). */
  startType: string | null;
}

/** One op for all the node services: one round trip for the tree's child items and the CLI table. */
export function nodeServicesState(names: readonly string[] = NODE_SERVICES): HostOp<{ services: NodeServiceState[] }> {
  return defineOp(
    'node-services-state',
    { Names: [...names] },
    `
$list = @()
foreach ($n in $Names) {
  $s = Get-Service -Name $n -ErrorAction SilentlyContinue
  if ($s) { $list += @{ name = $n; exists = $true; status = [string]$s.Status; startType = [string]$s.StartType } }
  else { $list += @{ name = $n; exists = $false; status = $null; startType = $null } }
}
$r = @{ services = $list }
${EMIT}
`,
    { timeoutMs: 60_000 },
  );
}

/** Restart-Service -Force (dependents restart too); waits up to 60 s for Running. */
export function restartService(name: string): HostOp<{ status: string }> {
  return defineOp(
    'restart-node-service',
    { Name: name },
    `
$s = Get-Service -Name $Name
Restart-Service -Name $Name -Force
$s.WaitForStatus('Running', [TimeSpan]::FromSeconds(60))
$r = @{ status = [string](Get-Service -Name $Name).Status }
${EMIT}
`,
    // Not retried after a lost connection: a second restart of kubelet is not harmless mid-drain.
    { timeoutMs: 120_000, retryable: false },
  );
}

/** LastBootUpTime in the host's clock (ISO 8601, UTC): a reboot happened when it changes. */
export function lastBootTime(): HostOp<{ lastBoot: string }> {
  return defineOp(
    'last-boot-time',
    {},
    `
$os = Get-CimInstance -ClassName Win32_OperatingSystem
$r = @{ lastBoot = $os.LastBootUpTime.ToUniversalTime().ToString('o') }
${EMIT}
`,
  );
}

export const METADATA_ADDRESS = '169.254.169.254';

export interface MetadataRouteState {
  /** NextHop of the default route with the lowest metric ('' when there is none). */
  gateway: string;
  ifIndex: number;
  /** NextHops of the 169.254.169.254/32 routes present. */
  routes: string[];
}

/** The default gateway and the routes to the AWS instance metadata endpoint. */
export function metadataRouteState(): HostOp<MetadataRouteState> {
  return defineOp(
    'metadata-route-state',
    { Address: METADATA_ADDRESS },
    `
$def = @(Get-NetRoute -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue | Sort-Object -Property RouteMetric)
$gw = ''
$idx = 0
if ($def.Count -gt 0) { $gw = [string]$def[0].NextHop; $idx = [int]$def[0].ifIndex }
$routes = @(Get-NetRoute -DestinationPrefix ($Address + '/32') -ErrorAction SilentlyContinue | ForEach-Object { [string]$_.NextHop })
$r = @{ gateway = $gw; ifIndex = $idx; routes = $routes }
${EMIT}
`,
  );
}

/**
 * What the OKD procedure runs after a reboot on AWS: `route add 169.254.169.254 MASK
 * 255.255.255.255 <gateway>`, as New-NetRoute in the active store (like `route add` without -p).
 * Idempotent: nothing is added when a route through this gateway exists.
 */
export function addMetadataRoute(gateway: string, ifIndex: number): HostOp<{ changed: boolean }> {
  return defineOp(
    'add-metadata-route',
    { Address: METADATA_ADDRESS, Gateway: gateway, IfIndex: ifIndex },
    `
$r = @{ changed = $false }
$have = @(Get-NetRoute -DestinationPrefix ($Address + '/32') -ErrorAction SilentlyContinue | Where-Object { $_.NextHop -eq $Gateway })
if ($have.Count -eq 0) {
  New-NetRoute -DestinationPrefix ($Address + '/32') -InterfaceIndex $IfIndex -NextHop $Gateway -PolicyStore ActiveStore | Out-Null
  $r.changed = $true
}
${EMIT}
`,
  );
}

/** The log folders of a Windows node (WMCO: C:\var\log\<component>; kubeadm: C:\k\log). */
export const NODE_LOG_DIRS = ['C:\\var\\log', 'C:\\k\\log'] as const;

export interface LogFileEntry {
  path: string;
  size: number;
}

/** Every file under the log folders, with its size: the size cap is checked on this before any download. */
export function listLogFiles(dirs: readonly string[] = NODE_LOG_DIRS): HostOp<{ files: LogFileEntry[] }> {
  return defineOp(
    'list-log-files',
    { Dirs: [...dirs] },
    `
$files = @()
foreach ($d in $Dirs) {
  if (Test-Path -LiteralPath $d -PathType Container) {
    foreach ($f in @(Get-ChildItem -LiteralPath $d -Recurse -File -Force -ErrorAction SilentlyContinue)) { $files += @{ path = $f.FullName; size = [long]$f.Length } }
  }
}
$r = @{ files = $files }
${EMIT}
`,
    { timeoutMs: 120_000 },
  );
}

export interface EventEntry {
  time: string;
  id: number;
  provider: string;
  message: string;
}

/** Recent errors of the System event log (Level 2), newest first. */
export function systemEventErrors(maxEvents = 200): HostOp<{ events: EventEntry[] }> {
  return defineOp(
    'system-event-errors',
    { MaxEvents: maxEvents },
    `
$events = @()
try {
  foreach ($e in @(Get-WinEvent -FilterHashtable @{ LogName = 'System'; Level = 2 } -MaxEvents $MaxEvents -ErrorAction Stop)) {
    $events += @{ time = $e.TimeCreated.ToUniversalTime().ToString('o'); id = [int]$e.Id; provider = [string]$e.ProviderName; message = [string]$e.Message }
  }
} catch {
  # Get-WinEvent throws when no event matches; an empty list is the answer then.
  $events = @()
}
$r = @{ events = $events }
${EMIT}
`,
    { timeoutMs: 120_000 },
  );
}
