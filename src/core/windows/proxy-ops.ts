/**
 * PowerShell ops for a node's proxy: read the machine's and the services' proxy variables and
 * whether given CA certificates are in LocalMachine\Root (one round trip), set or clear a service's
 * own proxy variables (its `Environment` REG_MULTI_SZ value, other entries kept), and reach URLs
 * through a proxy (the join preflight and the kubeadm path's check). Built with defineOp. Pure.
 */
import { defineOp, EMIT, type HostOp } from './host-ops';
import type { NodeProxyEnvironment } from '../proxy/node-env';
import type { ProxyReach } from '../proxy/reach';
import { PROXY_VARIABLES, type ProxyVariable } from '../proxy/settings';

/** The machine environment's registry key and a service's key (its `Environment` value). */
const MACHINE_ENV_KEY = 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment';
const SERVICES_KEY = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services';

export function nodeProxyEnvironment(
  services: readonly string[],
  thumbprints: readonly string[] = [],
): HostOp<NodeProxyEnvironment> {
  return defineOp(
    'node-proxy-environment',
    {
      Names: [...PROXY_VARIABLES],
      Services: [...services],
      Thumbprints: thumbprints.map((t) => t.toUpperCase()),
      EnvKey: MACHINE_ENV_KEY,
      ServicesKey: SERVICES_KEY,
    },
    `
$machine = @{}
$props = Get-ItemProperty -Path $EnvKey
foreach ($n in $Names) { $v = $props.$n; if ($null -ne $v) { $machine[$n] = [string]$v } }
$svcs = @()
foreach ($s in $Services) {
  $k = Join-Path $ServicesKey $s
  if (Test-Path -LiteralPath $k) {
    $e = (Get-ItemProperty -LiteralPath $k).Environment
    $svcs += @{ name = $s; exists = $true; environment = @($e | Where-Object { $_ }) }
  } else { $svcs += @{ name = $s; exists = $false; environment = @() } }
}
$certs = @{}
foreach ($t in $Thumbprints) { $certs[$t] = Test-Path -LiteralPath ('Cert:\\LocalMachine\\Root\\' + $t) }
$r = @{ machine = $machine; services = $svcs; certificates = $certs }
${EMIT}
`,
    { timeoutMs: 60_000 },
  );
}

/**
 * Sets a service's own proxy variables (entries of other names kept; an empty `variables` clears
 * them). Takes effect at the service's next start. Answers whether anything changed.
 */
export function setServiceProxyEnvironment(
  service: string,
  variables: Partial<Record<ProxyVariable, string>>,
): HostOp<{ changed: boolean }> {
  const entries = PROXY_VARIABLES.filter((v) => variables[v]).map((v) => `${v}=${variables[v]}`);
  return defineOp(
    'set-service-proxy-environment',
    { Service: service, Names: [...PROXY_VARIABLES], Entries: entries, ServicesKey: SERVICES_KEY },
    `
$k = Join-Path $ServicesKey $Service
if (-not (Test-Path -LiteralPath $k)) { throw "Cannot find any service with service name '$Service'." }
$old = @((Get-ItemProperty -LiteralPath $k).Environment | Where-Object { $_ })
$kept = @($old | Where-Object { $Names -notcontains ($_ -split '=', 2)[0].ToUpper() })
$new = @($kept + $Entries | Where-Object { $_ })
$changed = (($old -join [char]10) -ne ($new -join [char]10))
if ($changed) {
  if ($new.Count -gt 0) { Set-ItemProperty -LiteralPath $k -Name Environment -Type MultiString -Value ([string[]]$new) }
  else { Remove-ItemProperty -LiteralPath $k -Name Environment -ErrorAction SilentlyContinue }
}
$r = @{ changed = $changed }
${EMIT}
`,
    // The entries hold the proxy URL, which may carry a password.
    { secrets: ['Entries'], timeoutMs: 60_000 },
  );
}

/**
 * Reaches each URL through `proxy` in stages, so that a failure says where: a TCP connection to the
 * proxy, CONNECT host:port for an https URL (the proxy's status line read raw), then a HEAD with no
 * redirects followed (any HTTP answer, 401 from a registry included, means the way through works).
 * The proxy URL may carry credentials: a secret parameter, sent as Proxy-Authorization and as a
 * PSCredential, never in the URL Invoke-WebRequest is given.
 */
export function reachThroughProxy(proxy: string, urls: readonly string[]): HostOp<{ results: ProxyReach[] }> {
  return defineOp(
    'reach-through-proxy',
    { Proxy: proxy, Urls: [...urls] },
    `
$p = [Uri]$Proxy
$plain = $p.GetLeftPart([UriPartial]::Authority)
$auth = ''
$cred = $null
if ($p.UserInfo) {
  $pair = [Uri]::UnescapeDataString($p.UserInfo)
  $auth = 'Proxy-Authorization: Basic ' + [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes($pair)) + [char]13 + [char]10
  $user, $pw = $pair -split ':', 2
  $cred = New-Object System.Management.Automation.PSCredential($user, (ConvertTo-SecureString ([string]$pw) -AsPlainText -Force))
}
$crlf = [string][char]13 + [char]10
$results = @()
foreach ($u in $Urls) {
  $t = [Uri]$u
  $c = New-Object System.Net.Sockets.TcpClient
  try { $c.Connect($p.Host, $p.Port) } catch {
    $m = $_.Exception.Message
    if ($_.Exception.InnerException) { $m = $_.Exception.InnerException.Message }
    $results += @{ url = $u; stage = 'proxy'; error = $m }
    continue
  }
  if ($t.Scheme -eq 'https') {
    $code = 0
    try {
      $s = $c.GetStream()
      $s.ReadTimeout = 20000
      $hp = $t.Host + ':' + $t.Port
      $b = [Text.Encoding]::ASCII.GetBytes('CONNECT ' + $hp + ' HTTP/1.1' + $crlf + 'Host: ' + $hp + $crlf + $auth + $crlf)
      $s.Write($b, 0, $b.Length)
      $line = (New-Object System.IO.StreamReader($s, [Text.Encoding]::ASCII)).ReadLine()
      if ($line -match '^HTTP/[0-9.]+ ([0-9]{3})') { $code = [int]$Matches[1] }
    } catch { $code = 0 }
    $c.Close()
    if ($code -ne 200) { $results += @{ url = $u; stage = 'connect'; connectStatus = $code }; continue }
  } else { $c.Close() }
  $iw = @{ Uri = $u; Method = 'Head'; Proxy = $plain; UseBasicParsing = $true; MaximumRedirection = 0; TimeoutSec = 20; ErrorAction = 'Stop' }
  if ($cred) { $iw.ProxyCredential = $cred }
  try {
    $resp = Invoke-WebRequest @iw
    $results += @{ url = $u; status = [int]$resp.StatusCode }
  } catch {
    $code = $null
    if ($_.Exception.Response) { $code = [int]$_.Exception.Response.StatusCode }
    $st = [string]$_.Exception.Status
    if ($null -ne $code) { $results += @{ url = $u; status = $code } }
    elseif ($st -eq 'TrustFailure' -or $st -eq 'SecureChannelFailure') { $results += @{ url = $u; stage = 'tls'; error = $_.Exception.Message } }
    else { $results += @{ url = $u; stage = 'request'; error = $_.Exception.Message } }
  }
}
$r = @{ results = $results }
${EMIT}
`,
    { secrets: ['Proxy'], timeoutMs: 120_000 },
  );
}
