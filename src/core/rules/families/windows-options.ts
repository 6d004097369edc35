import { memoize } from '../../memo';
import type { Obj, Path } from '../../manifest/path';
import { preview } from '../../manifest/text';
import type { ContainerView, PodSpecView } from '../../manifest/workloads';
import { isServerCoreFamily } from '../../windows/builds';
import {
  apiField,
  apiSeverity,
  containerField,
  containerWord,
  declaredLinux,
  deleteFix,
  hostProcessInfo,
  objAt,
} from '../helpers';
import type { Targeting } from '../targeting';
import type { FixSpec, PodRule, Reporter } from '../types';

/** One `windowsOptions` object: the pod's or a container's, with what messages and fixes need. */
interface Site {
  /** Path of the `windowsOptions` map in the document. */
  path: Path;
  opts: Obj;
  /** API field path of a key inside this windowsOptions. */
  field(key: string): string;
  /** Path length a delete may empty ancestors down to (the pod spec or the container). */
  keep: number;
  container?: ContainerView;
}

const WO: Path = ['securityContext', 'windowsOptions'];

// Most rules of this family read the same sites of every pod: worked out once per pod (a hot path on large files).
const sitesCache = new WeakMap<PodSpecView, readonly Site[]>();

function sitesOf(pod: PodSpecView): readonly Site[] {
  let sites = sitesCache.get(pod);
  if (!sites) sitesCache.set(pod, (sites = findSites(pod)));
  return sites;
}

function findSites(pod: PodSpecView): Site[] {
  const out: Site[] = [];
  const podOpts = objAt(pod.spec, WO);
  if (podOpts)
    out.push({
      path: [...pod.path, ...WO],
      opts: podOpts,
      field: (k) => apiField(pod, [...WO, k]),
      keep: pod.path.length,
    });
  for (const c of pod.containers) {
    const opts = objAt(c.value, WO);
    if (opts)
      out.push({
        path: [...c.path, ...WO],
        opts,
        field: (k) => containerField(pod, c, [...WO, k]),
        keep: c.path.length,
        container: c,
      });
  }
  return out;
}

/** windowsOptions validation runs regardless of the OS, but a linux pod already gets WIN003 for the whole object. */
/** Go's len(): UTF-8 bytes. */
function byteLength(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// runAsUserName (validateWindowsSecurityContextOptions)

const CTRL = /[\x00-\x1f\x7f]/;
const NETBIOS = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const DOMAIN_DNS = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const USER_BAD_CHARS = /["/\\:;|=,+*?<>@[\]]/;
const USER_DOTS_SPACES = /^[. ]+$/;

export type UserNameProblem = 'WIN020' | 'WIN021' | 'WIN022' | 'WIN023' | 'WIN024' | 'WIN025' | 'WIN026';

/** The API server's checks of runAsUserName, in its order; each problem with the API's own message. */
/** Validated once per distinct value: seven rules (WIN020–WIN026) ask about the same name. */
export const runAsUserNameProblems = memoize(runAsUserNameProblemsOf);

function runAsUserNameProblemsOf(value: string): { id: UserNameProblem; message: string }[] {
  if (value.length === 0) return [{ id: 'WIN020', message: 'runAsUserName cannot be an empty string' }];
  if (CTRL.test(value)) return [{ id: 'WIN021', message: 'runAsUserName cannot contain control characters' }];
  const parts = value.split('\\');
  if (parts.length > 2) return [{ id: 'WIN022', message: 'runAsUserName cannot contain more than one backslash' }];
  const out: { id: UserNameProblem; message: string }[] = [];
  const hasDomain = parts.length === 2;
  const domain = hasDomain ? parts[0] : '';
  const user = hasDomain ? parts[1] : parts[0];
  if (byteLength(domain) >= 256)
    out.push({ id: 'WIN023', message: "runAsUserName's Domain length must be under 256 characters" });
  if (hasDomain && !(NETBIOS.test(domain) || DOMAIN_DNS.test(domain)))
    out.push({ id: 'WIN024', message: "runAsUserName's Domain doesn't match the NetBios nor the DNS format" });
  const userLen = byteLength(user);
  if (userLen === 0) out.push({ id: 'WIN025', message: "runAsUserName's User cannot be empty" });
  else if (userLen > 104)
    out.push({ id: 'WIN025', message: "runAsUserName's User length must not be longer than 104 characters" });
  if (USER_DOTS_SPACES.test(user))
    out.push({ id: 'WIN026', message: "runAsUserName's User cannot contain only periods or spaces" });
  if (USER_BAD_CHARS.test(user))
    out.push({
      id: 'WIN026',
      message: 'runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]',
    });
  return out;
}

function validUserName(v: string): boolean {
  return runAsUserNameProblems(v).length === 0;
}

/** A replacement value is offered only when it is valid and cannot be misread in a flow collection. */
function safeReplacement(v: string | undefined): v is string {
  return v !== undefined && v.length > 0 && validUserName(v) && !/[,[\]{}#]/.test(v);
}

type UserFix = (value: string, site: Site) => FixSpec[];

function userNameRule(id: UserNameProblem, title: string, advice: (value: string) => string, fix?: UserFix): PodRule {
  return {
    id,
    scope: 'pod',
    family: 'windows-options',
    severity: 'error',
    apiRejects: true,
    admission: { enforceable: false, why: 'api-validates' },
    title,
    check({ pod }, report) {
      if (declaredLinux(pod)) return;
      for (const site of sitesOf(pod)) {
        const value = site.opts.runAsUserName;
        if (typeof value !== 'string') continue;
        const problems = runAsUserNameProblems(value).filter((p) => p.id === id);
        if (problems.length === 0) continue;
        const apiText = problems
          .map((p) => `${site.field('runAsUserName')}: Invalid value: ${preview(value)}: ${p.message}`)
          .join('; ');
        report({
          path: [...site.path, 'runAsUserName'],
          target: 'value',
          message: `${apiText}. ${advice(value)}`,
          fixes: fix ? fix(value, site) : [],
        });
      }
    },
  };
}

/** The same account, written as Windows reads it (whitespace, quotes, slashes corrected). */
const setUser = (site: Site, value: string, title: string): FixSpec => ({
  title,
  kind: 'safe',
  ops: [{ op: 'set', path: [...site.path, 'runAsUserName'], value }],
});

const WIN020 = userNameRule(
  'WIN020',
  'windowsOptions.runAsUserName is an empty string: rejected by the API server.',
  () => "Remove the key to run as the image's default user, or name an account such as ContainerUser.",
  (_v, site) => [deleteFix('Remove the empty runAsUserName', [...site.path, 'runAsUserName'], site.keep)],
);

const WIN021 = userNameRule(
  'WIN021',
  'windowsOptions.runAsUserName contains control characters (a tab, or the newline a `|` block scalar adds): rejected by the API server.',
  () =>
    'A block scalar (| or >) keeps a trailing newline; write the account name as a plain or quoted scalar on one line.',
  (v, site) => {
    const cleaned = v.replace(/[\x00-\x1f\x7f]/g, '').trim();
    return safeReplacement(cleaned) ? [setUser(site, cleaned, `Set runAsUserName: ${preview(cleaned)}`)] : [];
  },
);

const WIN022 = userNameRule(
  'WIN022',
  'windowsOptions.runAsUserName has more than one backslash (often `\\\\` in single quotes or a plain scalar): rejected by the API server.',
  (v) => {
    const one = v.replace(/\\{2,}/g, '\\');
    const example = (one.split('\\').length === 2 ? one : 'NT AUTHORITY\\SYSTEM').slice(0, 60);
    return `YAML turns \\\\ into one backslash only inside double quotes; plain and single-quoted scalars keep both. Write '${example}' (single quotes or plain) or "${example.replace(/\\/g, '\\\\')}" (double quotes).`;
  },
  (v, site) => {
    const one = v.replace(/\\{2,}/g, '\\');
    return one.split('\\').length === 2 && safeReplacement(one)
      ? [setUser(site, one, `Use one backslash: ${one.length > 60 ? `${one.slice(0, 59)}…` : one}`)]
      : [];
  },
);

const WIN023 = userNameRule(
  'WIN023',
  'windowsOptions.runAsUserName domain part is 256 characters or longer: rejected by the API server.',
  () => 'The part before the backslash is a domain name; check the value for a pasted token or path.',
);

const WIN024 = userNameRule(
  'WIN024',
  'windowsOptions.runAsUserName domain part is neither a NetBIOS name nor a DNS name: rejected by the API server.',
  () =>
    'Use DOMAIN\\user with a NetBIOS domain (1-15 characters, none of \\ / : * ? " < > |, not starting with a dot) or a DNS domain such as corp.example.com.',
);

const WIN025 = userNameRule(
  'WIN025',
  'windowsOptions.runAsUserName user part is empty or longer than 104 characters: rejected by the API server.',
  () => 'Put an account name after the backslash (DOMAIN\\user), at most 104 characters.',
);

const WIN026 = userNameRule(
  'WIN026',
  'windowsOptions.runAsUserName user part is only periods/spaces or contains one of "/\\:;|=,+*?<>@[]: rejected by the API server.',
  (v) =>
    v.includes('@')
      ? 'The user@domain (UPN) form is not accepted; write DOMAIN\\user.'
      : v.includes('/')
        ? 'Separate domain and user with a backslash, not a slash.'
        : 'Use a plain account name such as ContainerUser, or DOMAIN\\user.',
  (v, site) => {
    // `NT AUTHORITY/SYSTEM`: a slash typed for the backslash.
    if (v.includes('\\') || v.split('/').length !== 2) return [];
    const fixed = v.replace('/', '\\');
    return safeReplacement(fixed) ? [setUser(site, fixed, `Use a backslash: ${preview(fixed)}`)] : [];
  },
);

// ---------------------------------------------------------------------------------------------
// gMSA

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);
const DNS1123_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** validation.IsDNS1123Subdomain: its messages, empty when valid. */
export function dns1123SubdomainProblems(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v)) out.push(DNS1123_MSG);
  return out;
}

const WIN027: PodRule = {
  id: 'WIN027',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'windows-options',
  severity: 'error',
  apiRejects: true,
  title:
    'windowsOptions.gmsaCredentialSpecName is not a lowercase DNS-1123 subdomain (e.g. has capitals): rejected by the API server.',
  check({ pod }, report) {
    if (declaredLinux(pod)) return;
    for (const site of sitesOf(pod)) {
      const value = site.opts.gmsaCredentialSpecName;
      if (typeof value !== 'string') continue;
      const problems = dns1123SubdomainProblems(value);
      if (problems.length === 0) continue;
      const lower = value.toLowerCase();
      const fixes: FixSpec[] =
        lower !== value && dns1123SubdomainProblems(lower).length === 0
          ? [
              {
                title: `Lowercase to ${preview(lower)}`,
                kind: 'safe',
                ops: [{ op: 'set', path: [...site.path, 'gmsaCredentialSpecName'], value: lower }],
              },
            ]
          : [];
      report({
        path: [...site.path, 'gmsaCredentialSpecName'],
        target: 'value',
        message:
          problems
            .map((m) => `${site.field('gmsaCredentialSpecName')}: Invalid value: ${preview(value)}: ${m}`)
            .join('; ') +
          `. It names a GMSACredentialSpec resource, whose names are lowercase${fixes.length > 0 ? '; use the lowercase name (and name the resource the same)' : ''}.`,
        fixes,
      });
    }
  },
};

export const MAX_SPEC = 64 * 1024;

const WIN028: PodRule = {
  id: 'WIN028',
  admission: { enforceable: false, why: 'api-validates' },
  scope: 'pod',
  family: 'windows-options',
  severity: 'error',
  apiRejects: true,
  title: 'windowsOptions.gmsaCredentialSpec is an empty string or larger than 64 KiB: rejected by the API server.',
  check({ pod }, report) {
    if (declaredLinux(pod)) return;
    for (const site of sitesOf(pod)) {
      const value = site.opts.gmsaCredentialSpec;
      if (typeof value !== 'string' || !specRefused(value)) continue;
      const empty = value.length === 0;
      const named = typeof site.opts.gmsaCredentialSpecName === 'string';
      const path = [...site.path, 'gmsaCredentialSpec'];
      const api = `${site.field('gmsaCredentialSpec')}: Invalid value: ${preview(value, 40)}: ${empty ? 'gmsaCredentialSpec cannot be an empty string' : 'gmsaCredentialSpec size must be under 64 KiB'}`;
      const advice = named
        ? 'Remove it: the gMSA webhook fills it in from the GMSACredentialSpec that gmsaCredentialSpecName names.'
        : 'Normally it is not written by hand: set gmsaCredentialSpecName to a GMSACredentialSpec resource and let the gMSA webhook fill it in.';
      report({
        path,
        message: `${api}. ${advice}`,
        // Dropping a large spec that no name backs would silently drop the identity; offer that only when a name is
        // there.
        fixes: empty || named ? [deleteFix('Remove gmsaCredentialSpec', path, site.keep)] : [],
      });
    }
  },
};

/** The API server refuses this gmsaCredentialSpec (WIN028) before any webhook reads it. */
function specRefused(value: string): boolean {
  return value.length === 0 || byteLength(value) > MAX_SPEC;
}

/** The word with its first letter in upper case, to start a sentence. */
function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function gmsaKind(pod: PodSpecView, site: Site): string {
  const c = site.container;
  if (!c) return `pod ${JSON.stringify(pod.object.kind === 'Pod' ? pod.object.name : '')}`;
  const kind =
    c.group === 'initContainers'
      ? 'initContainer'
      : c.group === 'ephemeralContainers'
        ? 'ephemeralContainer'
        : 'container';
  return `${kind} ${preview(c.name, 40)}`;
}

/** WIN029's words (the gMSA webhook's), shared with its admission policy: `who` is gmsaKind's. */
export const win029Message = (who: string): string =>
  `The gMSA webhook rejects this: ${who} has a GMSA cred spec set, but does not define the name of the corresponding resource. Set gmsaCredentialSpecName to the GMSACredentialSpec resource, which the service account must be allowed to use.`;

const WIN029: PodRule = {
  id: 'WIN029',
  admission: { enforceable: true },
  scope: 'pod',
  family: 'windows-options',
  severity: 'warning',
  title:
    'Inline windowsOptions.gmsaCredentialSpec without gmsaCredentialSpecName: the gMSA admission webhook rejects the pod.',
  check({ pod }, report) {
    if (declaredLinux(pod)) return;
    for (const site of sitesOf(pod)) {
      // A spec the API server refuses never reaches the webhook: WIN028 says it, with its one fix.
      if (typeof site.opts.gmsaCredentialSpec !== 'string' || specRefused(site.opts.gmsaCredentialSpec)) continue;
      const name = site.opts.gmsaCredentialSpecName;
      if (name !== undefined && name !== null) continue;
      report({
        path: [...site.path, 'gmsaCredentialSpec'],
        message: win029Message(gmsaKind(pod, site)),
      });
    }
  },
};

// ---------------------------------------------------------------------------------------------
// runAsNonRoot vs ContainerAdministrator (kubelet verifyRunAsNonRoot on Windows)
//
// The kubelet compares runAsUserName, or when that is unset the user the image *declares* in its
// config, with ContainerAdministrator (case-insensitive). Server Core images declare no user: there
// is then nothing to compare, the container starts and runs as ContainerAdministrator anyway
// (kubernetes/kubernetes#112469). So runAsNonRoot is refused only when runAsUserName names the
// administrator, and silently not enforced on a Server Core image without runAsUserName.

const ROOT = 'ContainerAdministrator';

/** The container's own value, else the pod's, with where it is set. */
function effective(
  pod: PodSpecView,
  c: ContainerView,
  key: 'runAsNonRoot' | 'runAsUserName',
): { value: unknown; path: Path } | undefined {
  const rel = key === 'runAsNonRoot' ? ['securityContext'] : WO;
  const own = objAt(c.value, rel);
  if (own && own[key] !== undefined && own[key] !== null) return { value: own[key], path: [...c.path, ...rel, key] };
  const podLevel = objAt(pod.spec, rel);
  if (podLevel && podLevel[key] !== undefined && podLevel[key] !== null)
    return { value: podLevel[key], path: [...pod.path, ...rel, key] };
  return undefined;
}

const containerUserFix = (c: ContainerView): FixSpec => ({
  title: 'Set windowsOptions.runAsUserName: ContainerUser',
  kind: 'rewrite', // a replaced identity
  ops: [{ op: 'set', path: [...c.path, ...WO, 'runAsUserName'], value: 'ContainerUser' }],
});

function checkNonRoot(pod: PodSpecView, target: Targeting, report: Reporter) {
  const info = hostProcessInfo(pod);
  for (const x of info.containers) {
    if (x.hostProcess) continue; // WIN014's case
    const c = x.c;
    const nonRoot = effective(pod, c, 'runAsNonRoot');
    if (!nonRoot || nonRoot.value !== true) continue;
    const user = effective(pod, c, 'runAsUserName');
    const who = `${capitalized(containerWord(c))} ${preview(c.name, 40)}`;
    const nonRootSet = { path: nonRoot.path, target: 'value' as const, message: 'runAsNonRoot: true is set here' };
    if (user && typeof user.value === 'string') {
      if (user.value.toLowerCase() !== ROOT.toLowerCase()) continue;
      const own =
        user.path.length > c.path.length && user.path.slice(0, c.path.length).every((s, i) => s === c.path[i]);
      const related = own
        ? [nonRootSet]
        : [
            { path: user.path, target: 'value' as const, message: 'runAsUserName ContainerAdministrator is set here' },
            nonRootSet,
          ];
      report({
        path: own ? user.path : [...c.path, 'name'],
        target: 'value',
        // The kubelet refuses it on every Windows node: it can never start as written.
        severity: apiSeverity(target),
        message: `${who} runs as ${user.value} (runAsUserName) while runAsNonRoot is true, so the kubelet refuses to start it (CreateContainerConfigError): "container's runAsUserName (${user.value}) which will be regarded as root identity and will break non-root policy". Run it as ContainerUser, or set runAsNonRoot: false if it needs administrator rights.`,
        fixes: [containerUserFix(c)],
        related,
      });
    } else if (!user && c.image && isServerCoreFamily(c.image)) {
      report({
        path: [...c.path, 'image'],
        target: 'value',
        message: `runAsNonRoot: true is not enforced for ${who.charAt(0).toLowerCase()}${who.slice(1)}: its Server Core based image declares no user, so the kubelet has nothing to check and the container runs as ContainerAdministrator, the Windows equivalent of root (kubernetes/kubernetes#112469). Set windowsOptions.runAsUserName: ContainerUser to really run it unprivileged.`,
        fixes: [containerUserFix(c)],
        related: [nonRootSet],
      });
    }
  }
}

const WIN030: PodRule = {
  id: 'WIN030',
  admission: { enforceable: false, why: 'image-os', detail: 'needs the user the image runs as' },
  scope: 'pod',
  family: 'windows-options',
  severity: 'warning',
  title:
    'runAsNonRoot: true on a Windows container that runs as ContainerAdministrator: not enforced when a Server Core image runs as its default user (the image declares none); refused by the kubelet when runAsUserName names it.',
  check({ pod, target }, report) {
    if (target.os !== 'windows') return;
    checkNonRoot(pod, target, report);
  },
};

export const windowsOptionsRules: PodRule[] = [
  WIN020,
  WIN021,
  WIN022,
  WIN023,
  WIN024,
  WIN025,
  WIN026,
  WIN027,
  WIN028,
  WIN029,
  WIN030,
];
