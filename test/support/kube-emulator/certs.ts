// A throwaway CA and a loopback server certificate signed by it, generated at start.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface GeneratedCerts {
  caPem: string;
  certPem: string;
  keyPem: string;
}

function keyPair(): { priv: forge.pki.rsa.PrivateKey; pub: forge.pki.rsa.PublicKey; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  return {
    pem,
    priv: forge.pki.privateKeyFromPem(pem),
    pub: forge.pki.publicKeyFromPem(
      publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ) as forge.pki.rsa.PublicKey,
  };
}

function baseCert(pub: forge.pki.rsa.PublicKey): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = pub;
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 60 * 60 * 1000);
  return cert;
}

export function generateCerts(): GeneratedCerts {
  const ca = keyPair();
  const caCert = baseCert(ca.pub);
  const caSubject = [{ name: 'commonName', value: 'kube-emulator-ca' }];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.priv, forge.md.sha256.create());

  const srv = keyPair();
  const cert = baseCert(srv.pub);
  cert.setSubject([{ name: 'commonName', value: 'kube-apiserver' }]);
  cert.setIssuer(caSubject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
        { type: 2, value: 'kubernetes.default.svc' },
      ],
    },
  ]);
  cert.sign(ca.priv, forge.md.sha256.create());
  return { caPem: forge.pki.certificateToPem(caCert), certPem: forge.pki.certificateToPem(cert), keyPem: srv.pem };
}
