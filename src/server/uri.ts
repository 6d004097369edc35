/** The path of a file: URI, for glob matching; undefined for other schemes (untitled:, …). */
export function uriPath(uri: string): string | undefined {
  if (!uri.startsWith('file://')) return undefined;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return undefined;
  }
}
