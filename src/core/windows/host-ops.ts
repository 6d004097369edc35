/**
 * The catalogue of PowerShell operations the bootstrap engine runs on a Windows host. Every
 * script the engine can send is built here, from parameters, by `psScript`: values become
 * single-quoted literals, never script text.
 *
 * Shape of every script (the simulated Windows host of the tests relies on it, as a reader would):
 *
 *     # kube-windows op: <name>
 *     $Param = <literal>          one assignment per parameter, in a fixed order
 *     ...                         the body, which refers only to those variables
 *     KWRESULT {json}             the last line written to stdout: the structured result
 *
 * Failures throw; `wrapScript` (applied by `powershellCommand`) turns them into exit code 1 with
 * the message on stderr. Pure: no I/O.
 */
import { psScript, type PsValue } from './powershell';

const RESULT_MARKER = 'KWRESULT ';

/** One operation: its name, parameters (for the dry-run and the simulator), script and result parser. */
export interface HostOp<R> {
  name: string;
  params: Readonly<Record<string, PsValue>>;
  /** The script, unwrapped (run it with powershellCommand). */
  script: string;
  /** Parameter values that are secret: shown as ••• in plans and logs. */
  secrets: readonly string[];
  /** Reads the structured result from stdout; throws when it is missing or malformed. */
  parse(stdout: string): R;
  /** A sensible limit for this operation, ms. */
  timeoutMs: number;
  /** false for ops that must not run twice on their own (kubeadm join, restart): no retry after a lost connection. */
  retryable: boolean;
}

/** Reads the `KWRESULT {json}` line (the last one wins) from a script's stdout. */
export function readResult(stdout: string, opName: string): unknown {
  const lines = stdout.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (!line.startsWith(RESULT_MARKER.trim())) continue;
    try {
      return JSON.parse(line.slice(RESULT_MARKER.trim().length).trim());
    } catch {
      throw new Error(`The host's answer to ${opName} was not valid JSON.`);
    }
  }
  throw new Error(`The host gave no result for ${opName} (is the default SSH shell PowerShell or cmd?).`);
}

/**
 * Defines an op: the header, one literal assignment per parameter, then the body. Other op modules
 * (mirrors, node operations) build their ops with it, so every op keeps the same shape.
 */
export function defineOp<R>(
  name: string,
  params: Record<string, PsValue>,
  body: string,
  options: { secrets?: string[]; timeoutMs?: number; retryable?: boolean; parse?: (v: unknown) => R } = {},
): HostOp<R> {
  const lines = [`# kube-windows op: ${name}`];
  for (const [key, value] of Object.entries(params)) {
    if (!/^[A-Z][A-Za-z0-9]*$/.test(key)) throw new Error(`host-ops: bad parameter name ${key}`);
    lines.push(`$${key} = ` + psScript`${value}`);
  }
  const script = `${lines.join('\n')}\n${body.trim()}\n`;
  const parse = options.parse ?? ((v: unknown) => v as R);
  return {
    name,
    params,
    script,
    secrets: options.secrets ?? [],
    timeoutMs: options.timeoutMs ?? 60_000,
    retryable: options.retryable ?? true,
    parse: (stdout) => parse(readResult(stdout, name)),
  };
}

/** Writes the result line; `$r` is a hashtable. */
/** The line a body ends with: writes `$r` (a hashtable) as the op's result. */
export const EMIT = "[Console]::Out.WriteLine('KWRESULT ' + (ConvertTo-Json -Compress -Depth 6 -InputObject $r))";

// ---------------------------------------------------------------------------------------------
// Facts

export interface HostFacts {
  hostname: string;
  /** Host name plus primary DNS suffix, as `ipconfig /all` shows it ("" when no suffix). */
  fqdn: string;
  /** CurrentBuild, e.g. 20348. */
  build: number;
  /** Update build revision, e.g. 681 (KB5012637 raises 20348 to .681). */
  ubr: number;
  productName: string;
  /** `Enabled`, `Disabled`, `EnablePending`, ... or `Unknown` when the query failed. */
  containersFeature: string;
  rebootPending: boolean;
  /** Network adapters that are up and have an IPv4 address. */
  adapters: { name: string; ipv4: string[] }[];
  /** The IPv4 address of the interface holding the default route (what kubelet uses as node IP). */
  defaultRouteIPv4: string;
  /** State of services that matter for a join; null when the service does not exist. */
  services: { docker: string | null; containerd: string | null; kubelet: string | null };
  isAdministrator: boolean;
}

export function hostFacts(): HostOp<HostFacts> {
  return defineOp<HostFacts>(
    'host-facts',
    {},
    `
$cv = Get-ItemProperty -LiteralPath 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion'
$tcp = Get-ItemProperty -LiteralPath 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters'
$feature = 'Unknown'
try { $feature = [string](Get-WindowsOptionalFeature -Online -FeatureName Containers).State } catch { $feature = 'Unknown' }
$pending = (Test-Path -LiteralPath 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Component Based Servicing\\RebootPending') -or (Test-Path -LiteralPath 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\WindowsUpdate\\Auto Update\\RebootRequired')
$adapters = @()
foreach ($a in @(Get-NetAdapter | Where-Object { $_.Status -eq 'Up' })) {
  $ips = @(Get-NetIPAddress -InterfaceIndex $a.ifIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue | ForEach-Object { $_.IPAddress })
  if ($ips.Count -gt 0) { $adapters += @{ name = $a.Name; ipv4 = $ips } }
}
$route = @(Get-NetRoute -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue | Sort-Object -Property RouteMetric)
$nodeIp = ''
if ($route.Count -gt 0) { $nodeIp = [string](@(Get-NetIPAddress -InterfaceIndex $route[0].ifIndex -AddressFamily IPv4)[0].IPAddress) }
$svc = @{}
foreach ($n in @('docker', 'containerd', 'kubelet')) {
  $s = Get-Service -Name $n -ErrorAction SilentlyContinue
  if ($s) { $svc[$n] = [string]$s.Status } else { $svc[$n] = $null }
}
$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
$fqdn = ''
if ($tcp.Domain) { $fqdn = $tcp.Hostname + '.' + $tcp.Domain }
$r = @{
  hostname = [string]$tcp.Hostname
  fqdn = $fqdn
  build = [int]$cv.CurrentBuild
  ubr = [int]$cv.UBR
  productName = [string]$cv.ProductName
  containersFeature = $feature
  rebootPending = [bool]$pending
  adapters = $adapters
  defaultRouteIPv4 = $nodeIp
  services = $svc
  isAdministrator = $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
}
${EMIT}
`,
    { timeoutMs: 60_000 },
  );
}

/** The public keys (authorized_keys lines) the host accepts for `user`. */
export function authorizedKeys(): HostOp<{ keys: string[] }> {
  return defineOp<{ keys: string[] }>(
    'authorized-keys',
    {},
    `
$files = @((Join-Path $env:ProgramData 'ssh\\administrators_authorized_keys'), (Join-Path $env:USERPROFILE '.ssh\\authorized_keys'))
$keys = @()
foreach ($f in $files) {
  if (Test-Path -LiteralPath $f) {
    $keys += @(Get-Content -LiteralPath $f | Where-Object { $_ -and -not $_.StartsWith('#') })
  }
}
$r = @{ keys = $keys }
${EMIT}
`,
  );
}

/** The IPv4 addresses `name` resolves to, as seen from the host (empty when it does not resolve). */
export function resolveName(name: string): HostOp<{ addresses: string[]; error?: string }> {
  return defineOp(
    'resolve-name',
    { Name: name },
    `
$r = @{ addresses = @() }
try {
  $r.addresses = @([System.Net.Dns]::GetHostAddresses($Name) | Where-Object { $_.AddressFamily -eq 'InterNetwork' } | ForEach-Object { $_.IPAddressToString })
} catch {
  $r.error = $_.Exception.Message
}
${EMIT}
`,
  );
}

// ---------------------------------------------------------------------------------------------
// Files

export function fileHash(path: string): HostOp<{ exists: boolean; sha256: string | null }> {
  return defineOp(
    'file-hash',
    { Path: path },
    `
$r = @{ exists = $false; sha256 = $null }
if (Test-Path -LiteralPath $Path -PathType Leaf) {
  $r.exists = $true
  $r.sha256 = (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
}
${EMIT}
`,
  );
}

/**
 * Second half of an atomic upload: checks the SHA-256 of the uploaded temporary file, then moves it
 * over the final path (same directory, so the move is a rename). On a mismatch the temporary file is
 * deleted and the op fails; the final path is never touched. Leftover temporaries of earlier,
 * interrupted uploads of the same file (`<Path>.kw-*.tmp`) are removed.
 */
export function commitUpload(tempPath: string, path: string, sha256: string): HostOp<{ moved: boolean }> {
  return defineOp(
    'commit-upload',
    { Temp: tempPath, Path: path, Sha256: sha256.toLowerCase() },
    `
$actual = (Get-FileHash -LiteralPath $Temp -Algorithm SHA256).Hash.ToLowerInvariant()
if ($actual -ne $Sha256) {
  Remove-Item -LiteralPath $Temp -Force
  throw ('The uploaded file is corrupt (SHA-256 ' + $actual + ', expected ' + $Sha256 + '); it was deleted and ' + $Path + ' was left as it was.')
}
Move-Item -LiteralPath $Temp -Destination $Path -Force
$dir = Split-Path -Parent $Path
$leaf = Split-Path -Leaf $Path
Get-ChildItem -LiteralPath $dir -File | Where-Object { $_.Name.StartsWith($leaf + '.kw-') -and $_.Name.EndsWith('.tmp') } | Remove-Item -Force
$r = @{ moved = $true }
${EMIT}
`,
  );
}

/** A small text file's content (UTF-8 or ASCII), or exists=false. Refuses files over 1 MB. */
export function readTextFile(path: string): HostOp<{ exists: boolean; text: string }> {
  return defineOp(
    'read-text-file',
    { Path: path },
    `
$r = @{ exists = $false; text = '' }
if (Test-Path -LiteralPath $Path -PathType Leaf) {
  if ((Get-Item -LiteralPath $Path).Length -gt 1048576) { throw ($Path + ' is larger than 1 MB') }
  $r.exists = $true
  $r.text = [string](Get-Content -LiteralPath $Path -Raw)
}
${EMIT}
`,
  );
}

export function ensureDirectories(paths: readonly string[]): HostOp<{ created: string[] }> {
  return defineOp(
    'ensure-directories',
    { Paths: [...paths] },
    `
$created = @()
foreach ($p in $Paths) {
  if (-not (Test-Path -LiteralPath $p -PathType Container)) {
    # Not New-Item -Path: it reads [ and ] in a path as wildcards.
    [void][IO.Directory]::CreateDirectory($p)
    $created += $p
  }
}
$r = @{ created = $created }
${EMIT}
`,
  );
}

export function removePath(path: string): HostOp<{ removed: boolean }> {
  return defineOp(
    'remove-path',
    { Path: path },
    `
$r = @{ removed = $false }
if (Test-Path -LiteralPath $Path) {
  Remove-Item -LiteralPath $Path -Recurse -Force
  $r.removed = $true
}
${EMIT}
`,
  );
}

/**
 * Unpacks a .tar.gz or .zip into a directory with tar.exe, once: a marker file in the destination
 * records the archive's SHA-256, and a second call with the same archive does nothing.
 */
export function expandArchive(
  archive: string,
  destination: string,
  sha256: string,
  stripComponents = 0,
): HostOp<{ changed: boolean }> {
  return defineOp(
    'expand-archive',
    { Archive: archive, Destination: destination, Sha256: sha256.toLowerCase(), Strip: stripComponents },
    `
$marker = Join-Path $Destination '.kube-windows-archive.sha256'
$r = @{ changed = $false }
if ((Test-Path -LiteralPath $marker) -and ((Get-Content -LiteralPath $marker -Raw).Trim() -eq $Sha256)) { ${EMIT}; return }
[void][IO.Directory]::CreateDirectory($Destination)
& tar.exe -x -f $Archive -C $Destination ('--strip-components=' + $Strip)
if ($LASTEXITCODE -ne 0) { throw ('tar.exe could not unpack ' + $Archive + ' (exit code ' + $LASTEXITCODE + ')') }
Set-Content -LiteralPath $marker -Value $Sha256 -Encoding ascii
$r.changed = $true
${EMIT}
`,
    { timeoutMs: 300_000 },
  );
}

/**
 * Downloads a URL on the host into `path`, through a temporary file checked against `sha256`;
 * nothing is downloaded when `path` already has that hash.
 */
export function downloadFile(url: string, path: string, sha256: string): HostOp<{ changed: boolean }> {
  return defineOp(
    'download-file',
    { Url: url, Path: path, Sha256: sha256.toLowerCase() },
    `
$r = @{ changed = $false }
if ((Test-Path -LiteralPath $Path -PathType Leaf) -and ((Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant() -eq $Sha256)) { ${EMIT}; return }
$temp = $Path + '.kw-download.tmp'
[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12
Invoke-WebRequest -UseBasicParsing -Uri $Url -OutFile $temp
$actual = (Get-FileHash -LiteralPath $temp -Algorithm SHA256).Hash.ToLowerInvariant()
if ($actual -ne $Sha256) {
  Remove-Item -LiteralPath $temp -Force
  throw ('The download from ' + $Url + ' has SHA-256 ' + $actual + ', expected ' + $Sha256 + '; it was deleted.')
}
Move-Item -LiteralPath $temp -Destination $Path -Force
$r.changed = $true
${EMIT}
`,
    { timeoutMs: 900_000 },
  );
}

// ---------------------------------------------------------------------------------------------
// Windows features and reboot

export function enableContainersFeature(): HostOp<{ changed: boolean; restartNeeded: boolean }> {
  return defineOp(
    'enable-containers-feature',
    {},
    `
$r = @{ changed = $false; restartNeeded = $false }
$state = [string](Get-WindowsOptionalFeature -Online -FeatureName Containers).State
if ($state -ne 'Enabled') {
  $result = Enable-WindowsOptionalFeature -Online -FeatureName Containers -All -NoRestart
  $r.changed = $true
  $r.restartNeeded = [bool]$result.RestartNeeded
}
${EMIT}
`,
    { timeoutMs: 900_000 },
  );
}

/**
 * Restarts the host. The command is scheduled a few seconds ahead so this op can answer before the
 * SSH server goes down; the engine then waits for the host to come back.
 */
export function restartComputer(
  reason = 'kube-windows: restart to finish enabling Windows features',
): HostOp<{ scheduled: boolean }> {
  return defineOp(
    'restart-computer',
    { DelaySeconds: 5, Reason: reason },
    `
& shutdown.exe /r /t $DelaySeconds /c $Reason /d p:4:2
if ($LASTEXITCODE -ne 0) { throw ('shutdown.exe failed with exit code ' + $LASTEXITCODE) }
$r = @{ scheduled = $true }
${EMIT}
`,
    { retryable: false },
  );
}

// ---------------------------------------------------------------------------------------------
// Services

export interface ServiceSpec {
  name: string;
  /** Full command line of the service binary (quoted as Windows expects). */
  binaryPathName: string;
  displayName: string;
  description: string;
  dependsOn: readonly string[];
}

export interface ServiceState {
  exists: boolean;
  status: string | null;
  startType: string | null;
  binaryPathName: string | null;
}

export function serviceState(name: string): HostOp<ServiceState> {
  return defineOp(
    'service-state',
    { Name: name },
    `
$r = @{ exists = $false; status = $null; startType = $null; binaryPathName = $null }
$s = Get-CimInstance -ClassName Win32_Service -Filter ("Name='" + $Name.Replace("'", "''") + "'")
if ($s) {
  $r.exists = $true
  $r.status = [string]$s.State
  $r.startType = [string]$s.StartMode
  $r.binaryPathName = [string]$s.PathName
}
${EMIT}
`,
  );
}

/** Creates the service, or updates its command line, dependencies and description when they differ. */
export function ensureService(spec: ServiceSpec): HostOp<{ created: boolean; changed: boolean }> {
  return defineOp(
    'ensure-service',
    {
      Name: spec.name,
      BinaryPathName: spec.binaryPathName,
      DisplayName: spec.displayName,
      Description: spec.description,
      DependsOn: [...spec.dependsOn],
    },
    `
$r = @{ created = $false; changed = $false }
$s = Get-CimInstance -ClassName Win32_Service -Filter ("Name='" + $Name.Replace("'", "''") + "'")
if (-not $s) {
  if ($DependsOn.Count -gt 0) {
    New-Service -Name $Name -BinaryPathName $BinaryPathName -DisplayName $DisplayName -Description $Description -StartupType Automatic -DependsOn $DependsOn | Out-Null
  } else {
    New-Service -Name $Name -BinaryPathName $BinaryPathName -DisplayName $DisplayName -Description $Description -StartupType Automatic | Out-Null
  }
  $r.created = $true
  $r.changed = $true
} elseif ($s.PathName -ne $BinaryPathName) {
  & sc.exe config $Name ('binPath=') $BinaryPathName ('depend=') ($DependsOn -join '/') ('start=') 'auto' | Out-Null
  if ($LASTEXITCODE -ne 0) { throw ('sc.exe config ' + $Name + ' failed with exit code ' + $LASTEXITCODE) }
  $r.changed = $true
}
& sc.exe failure $Name reset= 300 actions= restart/10000/restart/30000/restart/60000 | Out-Null
${EMIT}
`,
  );
}

export function startService(name: string): HostOp<{ status: string }> {
  return defineOp(
    'start-service',
    { Name: name },
    `
$s = Get-Service -Name $Name
if ($s.Status -ne 'Running') { Start-Service -Name $Name; $s.WaitForStatus('Running', [TimeSpan]::FromSeconds(60)) }
$r = @{ status = [string](Get-Service -Name $Name).Status }
${EMIT}
`,
    { timeoutMs: 120_000 },
  );
}

/** Stops and deletes a service; no error when it does not exist. */
export function removeService(name: string): HostOp<{ removed: boolean }> {
  return defineOp(
    'remove-service',
    { Name: name },
    `
$r = @{ removed = $false }
$s = Get-Service -Name $Name -ErrorAction SilentlyContinue
if ($s) {
  if ($s.Status -ne 'Stopped') { Stop-Service -Name $Name -Force }
  & sc.exe delete $Name | Out-Null
  $r.removed = $true
}
${EMIT}
`,
    { timeoutMs: 120_000 },
  );
}

export function ensureFirewallRule(name: string, port: number): HostOp<{ changed: boolean }> {
  return defineOp(
    'ensure-firewall-rule',
    { Name: name, Port: port },
    `
$r = @{ changed = $false }
if (-not (Get-NetFirewallRule -Name $Name -ErrorAction SilentlyContinue)) {
  New-NetFirewallRule -Name $Name -DisplayName $Name -Enabled True -Direction Inbound -Protocol TCP -Action Allow -LocalPort $Port | Out-Null
  $r.changed = $true
}
${EMIT}
`,
  );
}

// ---------------------------------------------------------------------------------------------
// kubeadm

export interface KubeadmJoinParams {
  kubeadmPath: string;
  /** host:port of the API server. */
  apiServerEndpoint: string;
  token: string;
  /** sha256:<hex> of the cluster CA's SubjectPublicKeyInfo. */
  caCertHash: string;
  nodeName: string;
  /** Passed as --cri-socket (needed before Kubernetes 1.25). */
  criSocket?: string;
}

/** Runs `kubeadm join`; its output (with the token removed by the engine) is the result. */
export function kubeadmJoin(p: KubeadmJoinParams): HostOp<{ exitCode: number; output: string }> {
  return defineOp(
    'kubeadm-join',
    {
      Kubeadm: p.kubeadmPath,
      Endpoint: p.apiServerEndpoint,
      Token: p.token,
      CaCertHash: p.caCertHash,
      NodeName: p.nodeName,
      CriSocket: p.criSocket ?? '',
    },
    `
$argv = @('join', $Endpoint, '--token', $Token, '--discovery-token-ca-cert-hash', $CaCertHash, '--node-name', $NodeName)
if ($CriSocket) { $argv += @('--cri-socket', $CriSocket) }
$output = & $Kubeadm @argv 2>&1 | Out-String
$r = @{ exitCode = $LASTEXITCODE; output = $output }
${EMIT}
`,
    { secrets: [p.token], timeoutMs: 600_000, retryable: false },
  );
}

/**
 * Runs an executable with arguments and returns what it printed (`kubelet.exe --version`); exists=false when the file
 * is absent.
 */
export function executableVersion(path: string, args: readonly string[]): HostOp<{ exists: boolean; output: string }> {
  return defineOp(
    'executable-version',
    { Exe: path, Argv: [...args] },
    `
$r = @{ exists = $false; output = '' }
if (Test-Path -LiteralPath $Exe -PathType Leaf) {
  $r.exists = $true
  $r.output = & $Exe @Argv 2>&1 | Out-String
}
${EMIT}
`,
    { timeoutMs: 60_000 },
  );
}

export function kubeadmReset(kubeadmPath: string): HostOp<{ exitCode: number; output: string }> {
  return defineOp(
    'kubeadm-reset',
    { Kubeadm: kubeadmPath },
    `
$r = @{ exitCode = 0; output = '' }
if (Test-Path -LiteralPath $Kubeadm) {
  $r.output = & $Kubeadm reset --force 2>&1 | Out-String
  $r.exitCode = $LASTEXITCODE
}
${EMIT}
`,
    { timeoutMs: 300_000 },
  );
}
