// The admission form of the runtime rules that can be enforced beyond rule-cel.ts's: pod-level resources
// (WIN058), resizePolicy (WIN065), mount propagation (WIN053) and an inline gMSA spec without its name
// (WIN029), in the rules' own words.
import { win065Message } from '../rules/families/lifecycle';
import { win058Message } from '../rules/families/resources';
import { win053Message } from '../rules/families/volumes';
import { MAX_SPEC, win029Message } from '../rules/families/windows-options';
import { at, present, str } from './cel';
import { fieldIf, item, join, previewCel, type RuleCel } from './finding-cel';
import { v } from './targeting-cel';

const WINDOWS_OPTIONS = ['securityContext', 'windowsOptions'];

/** CEL bool: an inline gMSA spec the API server accepts (WIN028 speaks of the others) and no name for it. */
const gmsaWithoutName = (o: string) =>
  `(has(${o}.gmsaCredentialSpec) && size(${o}.gmsaCredentialSpec) > 0 && size(bytes(${o}.gmsaCredentialSpec)) <= ${MAX_SPEC} && !has(${o}.gmsaCredentialSpecName))`;

export const RUNTIME_RULE_CEL: RuleCel[] = [
  {
    id: 'WIN029',
    notLinux: true,
    findings: [
      {
        // The "field" of each finding is who sets the spec: the webhook's sentence names no field path.
        pod: (s) =>
          fieldIf(
            `${present(s, WINDOWS_OPTIONS)} && ${gmsaWithoutName(at(s, WINDOWS_OPTIONS))}`,
            `'pod "' + (object.kind == 'Pod' && has(object.metadata.name) ? object.metadata.name : '') + '"'`,
          ),
        message: (who) => win029Message(who),
      },
      {
        container: (c, _p, group) =>
          fieldIf(
            `${present(c, WINDOWS_OPTIONS)} && ${gmsaWithoutName(at(c, WINDOWS_OPTIONS))}`,
            `${str(group === 'initContainers' ? 'initContainer ' : 'container ')} + ${previewCel(`${c}.name`, 40)}`,
          ),
        message: (who) => win029Message(who),
      },
    ],
  },
  {
    // Bidirectional without privileged (or on a declared Windows pod, which may not set privileged) is
    // the API server's refusal: such a pod never reaches admission.
    id: 'WIN053',
    findings: [
      {
        parts: 2,
        container: (c, p) =>
          `(has(${c}.volumeMounts) ? ${c}.volumeMounts.filter(m, has(m.mountPropagation) && m.mountPropagation != 'None' && !(m.mountPropagation == 'Bidirectional' && (${v('declared')} || !(${present(c, ['securityContext', 'privileged'])} && ${c}.securityContext.privileged)))).map(m, ${item(`${join(p, 'volumeMounts[')} + string(${c}.volumeMounts.indexOf(m)) + '].mountPropagation'`, previewCel('m.mountPropagation', 30))}) : [])`,
        message: (field, _note, [shown]) => win053Message(field, shown),
      },
    ],
  },
  {
    // A declared Windows pod with pod-level resources is the API server's refusal from 1.34; where the
    // field reaches admission at all (PodLevelResources on), an inferred one is the policy's.
    id: 'WIN058',
    findings: [true, false].map((declared) => ({
      pod: (s: string, p: string) =>
        fieldIf(`has(${s}.resources) && ${declared ? '' : '!'}${v('declared')}`, join(p, 'resources')),
      message: (field: string, note: string, _more: string[], ctx: { release: string }) =>
        win058Message(field, note, ctx.release, declared),
    })),
  },
  {
    id: 'WIN065',
    findings: [
      {
        container: (c, p) => fieldIf(`has(${c}.resizePolicy) && size(${c}.resizePolicy) > 0`, join(p, 'resizePolicy')),
        message: (field, note, _more, ctx) => win065Message(field, note, ctx.release),
      },
    ],
  },
];
