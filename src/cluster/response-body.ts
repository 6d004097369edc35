// Reading the body of a streamed API answer (a refusal's Status, a kubelet's folder listing) as text.
import type { IncomingMessage } from 'node:http';

/**
 * The body's text, at most about `limit` bytes of it: the rest is read and dropped, so the
 * connection is released and a huge answer cannot fill memory.
 */
export async function bodyText(res: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res) {
    if (n < limit) chunks.push(c as Buffer);
    n += (c as Buffer).length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
