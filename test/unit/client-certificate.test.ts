// An expired client certificate is said before any request (src/cluster/client-certificate.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { KubeConfig } from '@kubernetes/client-node';
import { expiredClientCertificate } from '../../src/cluster/client-certificate';

function certificate(notBefore: string, notAfter: string): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(notBefore);
  cert.validity.notAfter = new Date(notAfter);
  cert.setSubject([{ name: 'commonName', value: 'alice' }]);
  cert.setIssuer([{ name: 'commonName', value: 'ca' }]);
  cert.sign(
    forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
    forge.md.sha256.create(),
  );
  return forge.pki.certificateToPem(cert);
}

function config(user: Record<string, string>): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://10.0.0.1:6443', skipTLSVerify: false }],
    users: [{ name: 'alice', ...user }],
    contexts: [{ name: 'prod', cluster: 'c', user: 'alice' }],
    currentContext: 'prod',
  });
  return kc;
}

test('an expired client certificate: credentials expired, with its date, no secret in the words', () => {
  const pem = certificate('2025-01-01T00:00:00Z', '2025-01-02T00:00:00Z');
  const e = expiredClientCertificate(config({ certData: Buffer.from(pem).toString('base64') }), { context: 'prod' });
  assert.ok(e);
  assert.equal(e.reason, 'unauthorized');
  assert.equal(e.cause, 'credentials expired: the client certificate expired on 2025-01-02');
  assert.match(e.message, /^The client certificate of user "alice" for cluster "prod" expired on 2025-01-02T00:00:00Z/);
  assert.doesNotMatch(e.message, /BEGIN|MII/);
});

test('a valid certificate, a token, or a certificate that cannot be read: nothing said here', () => {
  const valid = certificate('2025-01-01T00:00:00Z', '2099-01-01T00:00:00Z');
  assert.equal(expiredClientCertificate(config({ certData: Buffer.from(valid).toString('base64') }), {}), undefined);
  assert.equal(expiredClientCertificate(config({ token: 'abc' }), {}), undefined);
  assert.equal(
    expiredClientCertificate(config({ certData: Buffer.from('garbage').toString('base64') }), {}),
    undefined,
  );
  assert.equal(expiredClientCertificate(config({ certFile: '/nonexistent/cert.pem' }), {}), undefined);
});
