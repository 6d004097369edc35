// Whether a container's commands reach outside the cluster: URLs whose host is neither the cluster's
// own (service and pod DNS names, single-label names, loopback) nor in the cluster's NO_PROXY, and
// programs that fetch from the network by nature (Invoke-WebRequest, curl, package managers that
// read public feeds). Read from the text the container runs; a script fetched at run time is not seen. Pure.
import { bypassesProxy, isClusterLocalHost } from './no-proxy';

/** What in a command shows it reaches outside, for the finding's words. */
export interface EgressEvidence {
  /** e.g. `Invoke-WebRequest`, `https://www.powershellgallery.com`. */
  what: string;
}

// Programs and cmdlets that go to the network; each with the words that make it a network call.
const FETCHERS: { name: string; pattern: RegExp }[] = [
  { name: 'Invoke-WebRequest', pattern: /\b(invoke-webrequest|iwr)\b/i },
  { name: 'Invoke-RestMethod', pattern: /\b(invoke-restmethod|irm)\b/i },
  { name: 'Start-BitsTransfer', pattern: /\bstart-bitstransfer\b/i },
  { name: 'WebClient', pattern: /\bnet\.webclient\b|\.download(file|string|data)\s*\(/i },
  { name: 'curl', pattern: /(^|[\s;&|(])curl(\.exe)?(?=$|[\s;&|)])/i },
  { name: 'wget', pattern: /(^|[\s;&|(])wget(\.exe)?(?=$|[\s;&|)])/i },
  {
    name: 'Install-Module',
    pattern: /\b(install-module|save-module|install-package|install-packageprovider|install-script)\b/i,
  },
  { name: 'choco install', pattern: /\bchoco(\.exe)?\s+(install|upgrade)\b/i },
  { name: 'winget install', pattern: /\bwinget(\.exe)?\s+install\b/i },
  { name: 'nuget', pattern: /\bnuget(\.exe)?\s+(install|restore)\b/i },
  { name: 'dotnet restore', pattern: /\bdotnet(\.exe)?\s+(restore|add\s+package|tool\s+install)\b/i },
  { name: 'pip install', pattern: /\bpip3?(\.exe)?\s+install\b/i },
  { name: 'npm install', pattern: /\bnpm(\.cmd)?\s+(install|ci|i)\b/i },
  { name: 'git clone', pattern: /\bgit(\.exe)?\s+(clone|fetch|pull)\b/i },
];

const URL_RE = /\b(?:https?|ftp):\/\/(\[[^\]]+\]|[^/\s'"`:;,)]+)/gi;

/** The evidence in one command text that it reaches outside the cluster (empty: none seen). */
export function egressEvidence(text: string, noProxy: string | undefined): EgressEvidence[] {
  const programs: EgressEvidence[] = [];
  const out: EgressEvidence[] = [];
  const urls = [...text.matchAll(URL_RE)];
  const outside = urls.filter((m) => {
    const host = (m[1] as string).replace(/^\[|\]$/g, '');
    return !isClusterLocalHost(host) && !bypassesProxy(host, noProxy);
  });
  for (const m of outside) out.push({ what: m[0] });
  // A fetcher whose every URL stays inside the cluster is not evidence; one with no URL in sight
  // (Install-Module, npm install) reads a public feed.
  if (urls.length === 0 || outside.length > 0)
    for (const f of FETCHERS) if (f.pattern.test(text)) programs.push({ what: f.name });
  const seen = new Set<string>();
  return [...programs, ...out].filter((e) => !seen.has(e.what) && seen.add(e.what));
}
