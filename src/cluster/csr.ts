// CertificateSigningRequests of a node: the kubelet's client CSR (requested by the bootstrap identity,
// the node named in the request's subject) and its serving CSRs (requested as system:node:<name>).
import type { ApiCall, Meta } from './api';
import type { KubeClient } from './kube-client';

export interface CsrObject {
  metadata: Meta;
  spec: { signerName?: string; username?: string; request?: string };
  status?: { conditions?: { type: string; status?: string; reason?: string; message?: string }[] };
}

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
export const CSR_LIST_CALL: ApiCall = { verb: 'GET', path: CSRS };

/**
 * CSRs for a node: the serving ones are requested as system:node:<name>; the first client CSR is
 * requested by the bootstrap identity, so its node is read from the subject CN of the request.
 */
export async function csrsForNode(kube: KubeClient, nodeName: string, signal?: AbortSignal): Promise<CsrObject[]> {
  const list = await kube.get<{ items?: CsrObject[] }>(CSRS, undefined, signal);
  const cn = `system:node:${nodeName}`;
  return (list.items ?? []).filter((c) => c.spec.username === cn || csrCommonName(c.spec.request) === cn);
}

/**
 * The subject common name of a PKCS#10 request (spec.request: base64 of PEM). Reads the first
 * attribute with OID 2.5.4.3 and a short-form length, which is what certificate requests carry.
 */
export function csrCommonName(request: string | undefined): string | undefined {
  if (!request) return undefined;
  let der: Buffer;
  try {
    const pem = Buffer.from(request, 'base64').toString('latin1');
    const body = /-----BEGIN [A-Z ]*REQUEST-----([\s\S]*?)-----END/.exec(pem)?.[1];
    der = body ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : Buffer.from(request, 'base64');
  } catch {
    return undefined;
  }
  const oid = Buffer.from([0x06, 0x03, 0x55, 0x04, 0x03]);
  const at = der.indexOf(oid);
  if (at < 0) return undefined;
  const tag = der[at + 5];
  const len = der[at + 6];
  if (tag === undefined || len === undefined || len > 127 || ![0x0c, 0x13, 0x14, 0x16].includes(tag)) return undefined;
  return der.subarray(at + 7, at + 7 + len).toString('utf8');
}

export function csrState(csr: CsrObject): 'Approved' | 'Denied' | 'Failed' | 'Pending' {
  const types = (csr.status?.conditions ?? []).filter((c) => c.status !== 'False').map((c) => c.type);
  if (types.includes('Denied')) return 'Denied';
  if (types.includes('Failed')) return 'Failed';
  if (types.includes('Approved')) return 'Approved';
  return 'Pending';
}
