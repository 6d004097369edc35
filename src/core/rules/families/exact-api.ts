import type { EngineRule } from '../types';

/**
 * The API server's own verdict (`check --exact-api`, the editor's kubeWindows.exactApi): reported by
 * the engine from the validator's answer (core/exact-api), in the server's exact words, when no rule
 * of ours says the same thing. Listed here so they can be configured like any rule.
 */
export const exactApiRules: EngineRule[] = [
  {
    id: 'API001',
    scope: 'engine',
    family: 'exact-api',
    severity: 'error',
    apiRejects: true,
    admission: { enforceable: false, why: 'api-validates' },
    title:
      "The API server's own validation refuses the object (names, labels, required fields, enums, Windows limits …): its exact words, with --exact-api.",
  },
  {
    id: 'API002',
    scope: 'engine',
    family: 'exact-api',
    severity: 'error',
    apiRejects: true,
    admission: {
      enforceable: false,
      why: 'dropped-before-admission',
      detail: 'a strict create refuses it, and a lenient one drops it, before admission',
    },
    title:
      'Unknown or duplicate field: a strict create (kubectl apply and create by default) is refused before validation; with --exact-api.',
  },
  {
    id: 'API003',
    scope: 'engine',
    family: 'exact-api',
    severity: 'warning',
    admission: { enforceable: false, why: 'api-validates', detail: 'the API server itself returns the warning' },
    title:
      'A warning the API server returns with the create (a deprecated label or field, a surprising value); with --exact-api.',
  },
];
