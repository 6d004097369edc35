/** Markdown-escapes a text from the cluster (tooltips are Markdown; names and messages are not). */
export function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}
