// A client certificate past its notAfter is refused by every API server (401): the session says so before
// any request, with the date, instead of a bare "Unauthorized" after a round trip.
import type { KubeConfig } from '@kubernetes/client-node';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClusterErrorItem, ErrorContext } from './errors';

/** The error of the current user's expired client certificate, or undefined (none, unreadable, still valid). */
export function expiredClientCertificate(
  config: KubeConfig,
  ctx: ErrorContext,
  now = Date.now(),
): ClusterErrorItem | undefined {
  const user = config.getCurrentUser();
  let notAfter: Date;
  try {
    const pem = user?.certData
      ? Buffer.from(user.certData, 'base64')
      : user?.certFile
        ? readFileSync(user.certFile)
        : undefined;
    if (!user || !pem) return undefined;
    notAfter = new Date(new X509Certificate(pem).validTo);
  } catch {
    return undefined; // a file or certificate that cannot be read fails the request, which words it
  }
  if (!(notAfter.getTime() < now)) return undefined;
  const when = notAfter.toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    kind: 'error',
    reason: 'unauthorized',
    what: 'client certificate',
    cause: `credentials expired: the client certificate expired on ${when.slice(0, 10)}`,
    message: `The client certificate of user "${user.name}" for cluster "${ctx.context ?? 'the cluster'}" expired on ${when}: the API server refuses it (401 Unauthorized). Log in again or renew the certificate to refresh the kubeconfig.`,
  };
}
