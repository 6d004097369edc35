// Builders for test manifests, so every rule test wraps a pod spec the same way.

/** Indents every non-empty line (blank lines stay empty, as an editor leaves them). */
export function indent(text: string, by: number): string {
  return text.replace(/^(?=.)/gm, ' '.repeat(by));
}

/** A Deployment named `web` around a pod spec given at column 0. */
export function deployment(podSpec: string, name = 'web'): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
${indent(podSpec, 6)}`;
}
