// The admission form of each rule that can be enforced: where in a pod spec it reports (CEL lists of the
// field paths it would name) and its sentence, taken from the rule's own module. The Windows decision
// and HostProcess membership are targeting-cel.ts's; the field lists are core/rules/helpers.ts's.
import { LINUX_ONLY_CONTAINER_FIELDS, LINUX_ONLY_POD_FIELDS } from '../rules/helpers';
import { win040Message, win041Message, win056Message } from '../rules/families/linux-only';
import { win054Message, win055Message } from '../rules/families/host-network';
import { win050Message } from '../rules/families/resources';
import { win051Message, win052Message, win057NfsMessage } from '../rules/families/volumes';
import { at, present } from './cel';
import { hostProcessContainer, POLICY_CONTAINER_GROUPS, v } from './targeting-cel';
import { containerWho, fieldIf, join, previewCel, type RuleCel } from './finding-cel';
import { RUNTIME_RULE_CEL } from './rule-cel-runtime';
import { SCHEDULING_RULE_CEL } from './rule-cel-scheduling';
import { COMMAND_RULE_CEL } from './rule-cel-commands';
import { WIN014_LIST_MAX, win013Message, win014Message } from '../rules/families/host-process';

const podFieldSet = (s: string, f: (typeof LINUX_ONLY_POD_FIELDS)[number]) => {
  const has = present(s, f.path);
  const value = at(s, f.path);
  return f.when === 'true'
    ? `${has} && ${value} == true`
    : f.when === 'nonEmpty'
      ? `${has} && size(${value}) > 0`
      : has;
};

/**
 * Hugepages quantities under `resources.limits|requests` of `base`, as field paths. Limits first: the API
 * server defaults a missing request to the limit before admission, and the document named the limit.
 */
const hugePages = (base: string, p: string) =>
  ['limits', 'requests']
    .map(
      (kind) =>
        `(${present(base, ['resources', kind])} ? ${at(base, ['resources', kind])}.filter(k, k.lowerAscii().startsWith('hugepages-')).map(k, ${join(p, `resources.${kind}.`)} + k) : [])`,
    )
    .join(' + ');

const userSet = (base: string) =>
  `(${present(base, ['securityContext', 'windowsOptions', 'runAsUserName'])} && size(${base}.securityContext.windowsOptions.runAsUserName) > 0)`;

const CORE_RULE_CEL: RuleCel[] = [
  {
    // The "field" of each finding is who sets no account: the sentence names no field path.
    id: 'WIN013',
    notLinux: true,
    hostProcess: true,
    findings: [
      {
        pod: (s) =>
          fieldIf(
            `${v('podHostProcess')} && !${userSet(s)} && ${v('allContainers')}.exists(c, ${hostProcessContainer('c')} && !${userSet('c')})`,
            "'HostProcess pod'",
          ),
        message: (who) => win013Message(who),
      },
      {
        container: (c, _p, group) =>
          fieldIf(
            `!${v('podHostProcess')} && !${userSet(v('spec'))} && ${hostProcessContainer(c)} && !${userSet(c)}`,
            `'HostProcess ' + ${containerWho(c, group)}`,
          ),
        message: (who) => win013Message(who),
      },
    ],
  },
  {
    // The pod's runAsNonRoot applies to the HostProcess containers that set none of their own.
    id: 'WIN014',
    notLinux: true,
    hostProcess: true,
    variables: () =>
      POLICY_CONTAINER_GROUPS.map((g) => ({
        name: `win014Inherit${g === 'initContainers' ? 'Init' : ''}`,
        expression: `${v(g)}.filter(c, ${hostProcessContainer('c')} && !(${present('c', ['securityContext', 'runAsNonRoot'])}))`,
      })),
    findings: [
      {
        pod: (s) => {
          const init = v('win014InheritInit');
          const names = `${init}.map(c, c.name) + ${v('win014Inherit')}.map(c, c.name)`;
          const shown = (list: string) => `${list}.map(n, ${previewCel('n', 40)}).join(', ')`;
          const quoted = `(size(${names}) > ${WIN014_LIST_MAX} ? ${shown(`(${names}).filter(n, (${names}).indexOf(n) < ${WIN014_LIST_MAX})`)} + ' and ' + string(size(${names}) - ${WIN014_LIST_MAX}) + ' more' : ${shown(`(${names})`)})`;
          const one = `(size(${init}) == 1 ? ${containerWho(`${init}[0]`, 'initContainers')} : ${containerWho(`${v('win014Inherit')}[0]`, 'containers')})`;
          return fieldIf(
            `${present(s, ['securityContext', 'runAsNonRoot'])} && ${s}.securityContext.runAsNonRoot && size(${names}) > 0`,
            `(size(${names}) == 1 ? 'HostProcess ' + ${one} : 'HostProcess containers ' + ${quoted})`,
          );
        },
        message: (who) => win014Message(who),
      },
      {
        container: (c, _p, group) =>
          fieldIf(
            `${hostProcessContainer(c)} && ${present(c, ['securityContext', 'runAsNonRoot'])} && ${c}.securityContext.runAsNonRoot`,
            `'HostProcess ' + ${containerWho(c, group)}`,
          ),
        message: (who) => win014Message(who),
      },
    ],
  },
  {
    id: 'WIN040',
    inferredOnly: true,
    hostProcess: true,
    findings: [
      {
        // shareProcessNamespace has its own rule (WIN056).
        pod: (s, p) =>
          LINUX_ONLY_POD_FIELDS.filter((f) => f.path[0] !== 'shareProcessNamespace')
            .map((f) => fieldIf(podFieldSet(s, f), join(p, f.path.join('.'))))
            .join(' + '),
        container: (c, p) =>
          LINUX_ONLY_CONTAINER_FIELDS.map((key) => {
            const has = present(c, ['securityContext', key]);
            // privileged: true on an ordinary container is WIN041's.
            const when =
              key === 'privileged'
                ? `${has} && !(${c}.securityContext.privileged && !${hostProcessContainer(c)})`
                : has;
            return fieldIf(when, join(p, `securityContext.${key}`));
          }).join(' + '),
        message: (field, note) => win040Message(field, note),
      },
    ],
  },
  {
    id: 'WIN041',
    inferredOnly: true,
    hostProcess: true,
    findings: [
      {
        container: (c, p) =>
          fieldIf(
            `${present(c, ['securityContext', 'privileged'])} && ${c}.securityContext.privileged && !${hostProcessContainer(c)}`,
            join(p, 'securityContext.privileged'),
          ),
        message: (field, note) => win041Message(field, note),
      },
    ],
  },
  {
    id: 'WIN050',
    findings: [
      {
        pod: (s, p) => hugePages(s, p),
        container: (c, p) => hugePages(c, p),
        message: (field, note) => win050Message(field, note),
      },
    ],
  },
  {
    id: 'WIN051',
    findings: [
      {
        pod: (s, p) =>
          `(has(${s}.volumes) ? ${s}.volumes.filter(x, ${present('x', ['emptyDir', 'medium'])} && x.emptyDir.medium == 'Memory').map(x, ${join(p, 'volumes[')} + string(${s}.volumes.indexOf(x)) + '].emptyDir.medium') : [])`,
        message: (field) => win051Message(field),
      },
    ],
  },
  {
    id: 'WIN052',
    findings: [
      {
        container: (c, p) =>
          fieldIf(`has(${c}.volumeDevices) && size(${c}.volumeDevices) > 0`, join(p, 'volumeDevices')),
        message: (field) => win052Message(field),
      },
    ],
  },
  {
    id: 'WIN054',
    hostProcess: true,
    findings: [
      {
        // HostProcess pods share the node's network and resolver.
        pod: (s, p) =>
          fieldIf(
            `has(${s}.dnsPolicy) && ${s}.dnsPolicy == 'ClusterFirstWithHostNet' && !${v('anyHostProcess')}`,
            join(p, 'dnsPolicy'),
          ),
        message: (field) => win054Message(field),
      },
    ],
  },
  {
    id: 'WIN055',
    hostProcess: true,
    findings: [
      {
        pod: (s, p) =>
          fieldIf(`has(${s}.hostNetwork) && ${s}.hostNetwork && !${v('anyHostProcess')}`, join(p, 'hostNetwork')),
        message: (field) => win055Message(field),
      },
    ],
  },
  {
    id: 'WIN056',
    inferredOnly: true,
    findings: [
      {
        pod: (s, p) =>
          fieldIf(`has(${s}.shareProcessNamespace) && ${s}.shareProcessNamespace`, join(p, 'shareProcessNamespace')),
        message: (field, note) => win056Message(field, note, true),
      },
      {
        pod: (s, p) =>
          fieldIf(`has(${s}.shareProcessNamespace) && !${s}.shareProcessNamespace`, join(p, 'shareProcessNamespace')),
        message: (field, note) => win056Message(field, note, false),
      },
    ],
  },
  {
    // Only its NFS finding: the others are info (advice), which no policy enforces.
    id: 'WIN057',
    findings: [
      {
        pod: (s, p) =>
          `(has(${s}.volumes) ? ${s}.volumes.filter(x, has(x.nfs)).map(x, ${join(p, 'volumes[')} + string(${s}.volumes.indexOf(x)) + '].nfs') : [])`,
        message: (field) => win057NfsMessage(field),
      },
    ],
  },
];

/** Every rule a policy can enforce. */
export const RULE_CEL: RuleCel[] = [...CORE_RULE_CEL, ...RUNTIME_RULE_CEL, ...COMMAND_RULE_CEL, ...SCHEDULING_RULE_CEL];

export const RULE_CEL_BY_ID = new Map(RULE_CEL.map((r) => [r.id, r]));
