/** Drops noise (managedFields) and refuses Secrets: the read-only YAML view never shows one. */
export function forDisplay(obj: unknown): object {
  const o = (obj ?? {}) as { kind?: string; metadata?: Record<string, unknown> };
  if (o.kind === 'Secret') throw new Error('Secrets are not shown');
  if (o.metadata && 'managedFields' in o.metadata) {
    const metadata = { ...o.metadata };
    delete metadata.managedFields;
    return { ...o, metadata };
  }
  return o;
}
