// The admission form of the scheduling rules that can be enforced (WIN072, WIN075): what the pod's node
// selector and required node affinity say, read the way the rules read them, in the rules' own words.
import {
  ARCH_LABELS,
  WIN075_ONLY_TERM,
  win072AffinityMessage,
  win072SelectorMessage,
} from '../rules/families/scheduling';
import { win075AffinityMessage, win075SelectorMessage } from '../rules/families/scheduling';
import {
  WIN071_EFFECT,
  win071AffinityCaseMessage,
  win071BetaAffinityMessage,
  win071BetaSelectorMessage,
  win071SelectorCaseMessage,
} from '../rules/families/scheduling';
import { OS_LABELS } from '../rules/targeting';
import { BETA_OS_LABEL, OS_LABEL } from '../well-known';
import { at, present, str, strList } from './cel';
import { fieldIf, item, join, previewCel, previewListCel, type RuleCel } from './finding-cel';
import { v } from './targeting-cel';

const REQUIRED = ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];

/** CEL list: the required node selector terms (none when unset). */
const requiredTerms = (s: string) => `(${present(s, REQUIRED)} ? ${at(s, REQUIRED)} : [])`;

/** CEL list: per required term that has an expression `test` accepts, `item` of the term's first such one. */
const firstPerTerm = (s: string, test: (e: string) => string, item: (e: string) => string) =>
  `${requiredTerms(s)}.filter(t, has(t.matchExpressions) && t.matchExpressions.exists(e, ${test('e')})).map(t, t.matchExpressions.filter(e, ${test('e')}).map(e, ${item('e')})[0])`;

const values = (e: string) => `(has(${e}.values) ? ${e}.values : [])`;

const PREFERRED = ['affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution'];

/** CEL list: the terms of the required node affinity, or the preferences of the preferred one. */
const affinityTerms = (s: string, required: boolean) =>
  required
    ? requiredTerms(s)
    : `(${present(s, PREFERRED)} ? ${at(s, PREFERRED)}.filter(p, has(p.preference)).map(p, p.preference) : [])`;

/** CEL bool: an OS value that differs from windows or linux by case only, and names the OS spec.os.name does not contradict (WIN072 speaks of that). */
const wrongCase = (x: string) =>
  `(${x}.lowerAscii() in ['windows', 'linux'] && ${x} != ${x}.lowerAscii() && !(${v('osName')} in ['windows', 'linux'] && ${x}.lowerAscii() != ${v('osName')}))`;

/** WIN071's words for a wrong-case value of an affinity expression: what it does to the pod. */
const caseEffect = (e: string, required: boolean) => {
  const others = `(${e}.operator == 'NotIn' ? ${str(WIN071_EFFECT.excludesNone)} : ${str(WIN071_EFFECT.matchesNone)})`;
  return required
    ? `(${e}.operator == 'In' && !${values(e)}.exists(x, x == 'windows' || x == 'linux') ? ${str(WIN071_EFFECT.never)} : ${others})`
    : others;
};

const selectorValue = (s: string, label: string) =>
  `(has(${s}.nodeSelector) && ${str(label)} in ${s}.nodeSelector ? ${s}.nodeSelector[${str(label)}] : '')`;

/** The OS a pod declaring `os.name` cannot also select. */
const otherOs = `(${v('osName')} == 'windows' ? 'linux' : 'windows')`;

const archExcluded = (e: string) =>
  `(${e}.key in ${strList(ARCH_LABELS)} && ((${e}.operator == 'In' && size(${values(e)}) > 0 && !('amd64' in ${values(e)})) || (${e}.operator == 'NotIn' && 'amd64' in ${values(e)})))`;

const osConflict = (e: string) =>
  `(${e}.key in ${strList(OS_LABELS)} && ((${e}.operator == 'In' && size(${values(e)}) > 0 && !${values(e)}.exists(x, x.lowerAscii() == ${v('osName')})) || (${e}.operator == 'NotIn' && ${v('osName')} in ${values(e)})))`;

export const SCHEDULING_RULE_CEL: RuleCel[] = [
  {
    id: 'WIN071',
    findings: [
      ...[true, false].map((hasNew) => ({
        pod: (s: string, p: string) =>
          fieldIf(
            `has(${s}.nodeSelector) && ${str(BETA_OS_LABEL)} in ${s}.nodeSelector && ${hasNew ? '' : '!'}(${str(OS_LABEL)} in ${s}.nodeSelector)`,
            join(p, 'nodeSelector'),
          ),
        message: (field: string) => win071BetaSelectorMessage(field, hasNew),
      })),
      ...OS_LABELS.map((label) => ({
        parts: 2,
        pod: (s: string) =>
          fieldIf(
            `has(${s}.nodeSelector) && ${str(label)} in ${s}.nodeSelector && ${wrongCase(`${s}.nodeSelector[${str(label)}]`)}`,
            item(previewCel(`${s}.nodeSelector[${str(label)}]`, 120), `${s}.nodeSelector[${str(label)}].lowerAscii()`),
          ),
        message: (shown: string, _note: string, [fix]: string[]) => win071SelectorCaseMessage(label, shown, fix),
      })),
      ...[true, false].flatMap((required) => {
        const kind = required ? 'required node affinity' : 'preferred node affinity';
        const exprs = (t: string, test: (e: string) => string) =>
          `has(${t}.matchExpressions) && ${t}.matchExpressions.exists(e, ${test('e')})`;
        const wrongValue = (e: string) =>
          `(${e}.key in ${strList(OS_LABELS)} && ${values(e)}.exists(x, ${wrongCase('x')}))`;
        return [
          {
            // The "field" of this finding is unused: the sentence names the kind of affinity only.
            pod: (s: string) =>
              fieldIf(
                `${affinityTerms(s, required)}.exists(t, ${exprs('t', (e) => `${e}.key == ${str(BETA_OS_LABEL)}`)})`,
                "''",
              ),
            message: () => win071BetaAffinityMessage(kind),
          },
          {
            // The first wrong-case value of each term that has one (a policy says one sentence anyway).
            parts: 5,
            pod: (s: string) =>
              `${affinityTerms(s, required)}.filter(t, ${exprs('t', wrongValue)}).map(t, t.matchExpressions.filter(e, ${wrongValue('e')}).map(e, ${values('e')}.filter(x, ${wrongCase('x')}).map(x, ${item('e.key', 'e.operator', previewCel('x', 120), 'x.lowerAscii()', caseEffect('e', required))})[0])[0])`,
            message: (key: string, _note: string, [operator, shown, fix, effect]: string[]) =>
              win071AffinityCaseMessage(kind, key, operator, shown, fix, effect),
          },
        ];
      }),
    ],
  },
  {
    // The RuntimeClass's node selector is another object's: only the pod's own selector and affinity here.
    id: 'WIN072',
    osDeclared: true,
    findings: [
      ...OS_LABELS.map((label) => ({
        parts: 3,
        pod: (s: string, p: string) =>
          fieldIf(
            `${selectorValue(s, label)}.lowerAscii() == ${otherOs}`,
            item(join(p, 'os.name'), v('osName'), previewCel(selectorValue(s, label), 120)),
          ),
        message: (field: string, _note: string, [osName, shown]: string[]) =>
          win072SelectorMessage(field, osName, label, shown),
      })),
      {
        // Terms are ORed: the pod is stuck only when every required term excludes its OS.
        parts: 3,
        pod: (s, p) =>
          `(size(${requiredTerms(s)}) > 0 && ${requiredTerms(s)}.all(t, has(t.matchExpressions) && t.matchExpressions.exists(e, ${osConflict('e')})) ? ${firstPerTerm(s, osConflict, (e) => item(join(p, 'os.name'), v('osName'), `${e}.key + ' ' + ${e}.operator + ' ' + ${previewListCel(values(e), 120)}`))} : [])`,
        message: (field, _note, [osName, expression]) => win072AffinityMessage(field, osName, expression),
      },
    ],
  },
  {
    id: 'WIN075',
    findings: [
      ...ARCH_LABELS.map((label) => ({
        parts: 2,
        pod: (s: string, p: string) =>
          fieldIf(
            `has(${s}.nodeSelector) && ${str(label)} in ${s}.nodeSelector && ${s}.nodeSelector[${str(label)}] != 'amd64'`,
            item(join(p, `nodeSelector.${label}`), previewCel(`${s}.nodeSelector[${str(label)}]`, 40)),
          ),
        message: (field: string, _note: string, [shown]: string[]) => win075SelectorMessage(field, shown),
      })),
      {
        // The "field" of this finding is the expression's key: the sentence names no field path.
        parts: 4,
        pod: (s) =>
          firstPerTerm(s, archExcluded, (e) =>
            item(
              `${e}.key`,
              `${e}.operator`,
              `${values(e)}.map(x, string(x)).join(', ')`,
              `size(${requiredTerms(s)}) == 1 ? ${str(WIN075_ONLY_TERM)} : ''`,
            ),
          ),
        message: (key, _note, [operator, list, onlyTerm]) => win075AffinityMessage(key, operator, list, onlyTerm),
      },
    ],
  },
];
