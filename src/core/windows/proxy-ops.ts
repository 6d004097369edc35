/**
 * PowerShell ops for a node's proxy: read the machine's and the services' proxy variables and
 * whether given CA certificates are in LocalMachine\Root (one round trip), set or clear a service's
 * own proxy variables (its `Environment` REG_MULTI_SZ value, other entries kept), and reach URLs
 * through a proxy (the join preflight and the kubeadm path's check). Built with defineOp. Pure.
 */
import { defineOp, EMIT, type HostOp } from './host-ops';
import type { NodeProxyEnvironment } from '../proxy/node-env';
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

/** One URL reached through the proxy: the HTTP status it answered, or why it was not reached. */
export interface ProxyReach {
  url: string;
  status?: number;
  error?: string;
}

/**
 * Reaches each URL through `proxy` (HEAD, no redirects followed): any HTTP answer, 401 from a
 * registry included, means the proxy let the host through; a failure says what went wrong. The
 * proxy URL may carry credentials, so it is a secret parameter.
 */
export function reachThroughProxy(proxy: string, urls: readonly string[]): HostOp<{ results: ProxyReach[] }> {
  return defineOp(
    'reach-through-proxy',
    { Proxy: proxy, Urls: [...urls] },
    `
$results = @()
foreach ($u in $Urls) {
  try {
    $resp = Invoke-WebRequest -Uri $u -Method Head -Proxy $Proxy -UseBasicParsing -MaximumRedirection 0 -TimeoutSec 20 -ErrorAction Stop
    $results += @{ url = $u; status = [int]$resp.StatusCode }
  } catch {
    $code = $null
    if ($_.Exception.Response) { $code = [int]$_.Exception.Response.StatusCode }
    if ($null -ne $code) { $results += @{ url = $u; status = $code } }
    else { $results += @{ url = $u; error = $_.Exception.Message } }
  }
}
$r = @{ results = $results }
${EMIT}
`,
    { secrets: ['Proxy'], timeoutMs: 120_000 },
  );
}
