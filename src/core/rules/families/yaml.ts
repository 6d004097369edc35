import type { EngineRule } from '../types';

/** Reported by the engine when a document cannot be analysed; listed here so they can be configured. */
export const yamlRules: EngineRule[] = [
  {
    id: 'YAML001',
    admission: { enforceable: false, why: 'not-a-pod', detail: 'about the YAML text itself' },
    scope: 'engine',
    family: 'yaml',
    severity: 'error',
    apiRejects: true,
    title: 'Document is not valid YAML; it was not analysed (the rest of the file still is).',
  },
  {
    id: 'YAML002',
    admission: { enforceable: false, why: 'not-a-pod', detail: 'about the YAML text itself' },
    scope: 'engine',
    family: 'yaml',
    severity: 'info',
    title:
      "Document is a Helm/Go or envsubst template (text in data is not: a ConfigMap's files, a multi-line string, a Prometheus rule's {{ $labels }}); render it first, then check the output.",
  },
  {
    id: 'YAML003',
    admission: { enforceable: false, why: 'not-a-pod', detail: 'about the YAML text itself' },
    scope: 'engine',
    family: 'yaml',
    severity: 'warning',
    title: 'Document is too complex to analyse safely (alias expansion over the cap, or nesting too deep).',
  },
];
