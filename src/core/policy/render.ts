// The generated policies as text: YAML documents under a comment that says what they do, or a JSON List.
import { writeYaml } from '../manifest/yaml-writer';

export function renderPolicies(
  objects: readonly unknown[],
  format: 'yaml' | 'json',
  summary: readonly string[],
): string {
  if (format === 'json') return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`;
  return objects.map((o, i) => writeYaml(o, i === 0 ? { comment: summary.join('\n') } : {})).join('---\n');
}
