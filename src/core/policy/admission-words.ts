// What `kube-windows rules` and docs/rules.md say about a rule's admission policy.
import type { Admission, AdmissionWhyNot } from '../rules/types';

const WHY_NOT: Record<AdmissionWhyNot, string> = {
  'node-facts': "needs the nodes' or the cluster's facts",
  'image-os': "needs the image's operating system or content, which only the registry knows",
  'other-object': 'needs another object',
  'api-validates': "the API server's own validation rejects it before admission",
  'dropped-before-admission': 'the API server drops the field before admission',
  'not-a-pod': 'not about a pod or pod template',
  advice: 'advice, not a mistake to refuse',
  'not-exact': 'CEL cannot express it exactly',
  'not-generated': 'no CEL is generated for it yet',
};

/** "enforceable" or "no: <why>" (with the rule's detail). */
export function admissionText(a: Admission): string {
  if (a.enforceable) return `enforceable${a.detail ? ` (${a.detail})` : ''}`;
  return `no: ${WHY_NOT[a.why]}${a.detail ? ` (${a.detail})` : ''}`;
}

/** The short column value: "yes" or the reason's code. */
export function admissionCode(a: Admission): string {
  return a.enforceable ? 'yes' : a.why;
}
