import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  containerdHostDir,
  hostPort,
  isNtfsSafeName,
  isWildcard,
  keepsSourcePath,
  linuxPullPath,
  registryHost,
  repositoryPath,
  stripScheme,
  windowsPullPath,
  wmcoMirrorHost,
  wmcoMirrorOrder,
} from '../../src/core/mirrors/paths';

test('registryHost follows WMCO: URL host with a scheme, else everything before the first slash', () => {
  assert.equal(registryHost('https://source1.local:5000'), 'source1.local:5000');
  assert.equal(registryHost('docker://mcr.microsoft.com/oss/kubernetes/pause'), 'mcr.microsoft.com');
  assert.equal(registryHost('devcluster.openshift.com:5000/pipeline'), 'devcluster.openshift.com:5000');
  assert.equal(registryHost('registry.redhat.io'), 'registry.redhat.io');
  assert.equal(registryHost('*.example.com'), '*.example.com');
  assert.equal(stripScheme(' https://a.io/x '), 'a.io/x');
});

test('repositoryPath is the part after the host', () => {
  assert.equal(repositoryPath('registry.access.redhat.com/ubi9/ubi-minimal'), 'ubi9/ubi-minimal');
  assert.equal(repositoryPath('registry.redhat.io'), '');
  assert.equal(repositoryPath('docker://mcr.microsoft.com/oss/kubernetes/pause/'), 'oss/kubernetes/pause');
});

test('wmcoMirrorHost strips the trailing segments shared with the source (WMCO extractMirrorURL cases)', () => {
  assert.equal(wmcoMirrorHost('example.com/path/to/resource', 'example.org/path/to/resource'), 'example.org');
  assert.equal(
    wmcoMirrorHost('example.com/path/to/resource/x', 'example.com/path/to/resourceax'),
    'example.com/path/to/resourceax',
  );
  assert.equal(
    wmcoMirrorHost('mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022', 'quay.io/powershell:23'),
    'quay.io/powershell:23',
  );
  assert.equal(
    wmcoMirrorHost(
      'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022',
      'quay.io/powershell:lts-nanoserver-ltsc2022',
    ),
    'quay.io',
  );
  assert.equal(
    wmcoMirrorHost(
      'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022',
      'quay.io/random_namespace/powershell:lts-nanoserver-ltsc2022',
    ),
    'quay.io/random_namespace',
  );
  assert.equal(
    wmcoMirrorHost(
      'mcr.microsoft.com/windows/servercore:ltsc2022',
      'quay.io/mohashai/random_namespace/windows/servercore:ltsc2022',
    ),
    'quay.io/mohashai/random_namespace',
  );
  assert.equal(wmcoMirrorHost('foo1/fah/different/foo2', 'foo1/fah/something/foo2'), 'foo1/fah/something');
  assert.equal(
    wmcoMirrorHost('docker://mcr.microsoft.com/oss/kubernetes/pause', 'quay.io/testuser/oss/kubernetes/pause'),
    'quay.io/testuser',
  );
  assert.equal(wmcoMirrorHost('registry.redhat.io', 'mirror.example.com/rh'), 'mirror.example.com/rh');
  // A mirror equal to its source keeps only its host.
  assert.equal(wmcoMirrorHost('quay.io/org/img', 'quay.io/org/img'), 'quay.io');
  // The registry host itself is never stripped.
  assert.equal(wmcoMirrorHost('a.io/quay.io', 'quay.io'), 'quay.io');
});

test('windowsPullPath: the docs example pulls example.io/example/ubi9/ubi-minimal on Windows', () => {
  const src = 'registry.access.redhat.com/ubi9/ubi-minimal';
  const mir = 'example.io/example/ubi-minimal';
  assert.equal(windowsPullPath(src, mir), 'example.io/example/ubi9/ubi-minimal');
  assert.equal(linuxPullPath(src, mir), 'example.io/example/ubi-minimal');
  assert.equal(keepsSourcePath(src, mir), false);
  // Images under a namespace source.
  assert.equal(
    windowsPullPath('quay.io/remote-org', 'mirror.local/my-org', 'quay.io/remote-org/image'),
    'mirror.local/my-org/remote-org/image',
  );
  assert.equal(
    linuxPullPath('quay.io/remote-org', 'mirror.local/my-org', 'quay.io/remote-org/image'),
    'mirror.local/my-org/image',
  );
  assert.equal(
    linuxPullPath('quay.io/remote-org', 'mirror.local/my-org', 'docker.io/library/x'),
    'docker.io/library/x',
  );
  // Bare registry source.
  assert.equal(
    windowsPullPath('registry.redhat.io', 'mirror.example.com/rh', 'registry.redhat.io/ubi9/ubi'),
    'mirror.example.com/rh/ubi9/ubi',
  );
  assert.equal(windowsPullPath('registry.redhat.io', 'mirror.example.com/rh'), 'mirror.example.com/rh');
});

test('keepsSourcePath holds exactly when Windows and Linux pull the same repository', () => {
  const cases: [string, string, boolean][] = [
    ['mcr.microsoft.com/oss/kubernetes/pause', 'mirror.io/oss/kubernetes/pause', true],
    ['mcr.microsoft.com/oss/kubernetes/pause', 'mirror.io/custom/oss/kubernetes/pause', true],
    ['mcr.microsoft.com/oss/kubernetes/pause', 'mirror.io/x/y/z/oss/kubernetes/pause', true],
    ['mcr.microsoft.com/oss/kubernetes/pause', 'mirror.io/kubernetes/pause', false],
    ['mcr.microsoft.com/oss/kubernetes/pause', 'mirror.io/pause', false],
    ['registry.redhat.io', 'mirror.io/anything', true],
    ['quay.io/a/b', 'quay.io/a/b', true],
    ['quay.io/remote-org', 'quay.io/my-org', false],
    ['a.io/x/y', 'b.io/y', false],
    ['a.io/x/y', 'b.io/y/x/y', true],
  ];
  for (const [src, mir, keeps] of cases) {
    assert.equal(keepsSourcePath(src, mir), keeps, `${src} → ${mir}`);
    assert.equal(
      windowsPullPath(src, mir, `${src}/child`) === linuxPullPath(src, mir, `${src}/child`),
      keeps,
      `${src} → ${mir} (child image)`,
    );
  }
});

test('ports, wildcards and NTFS names', () => {
  assert.equal(hostPort('registry.local:5000'), '5000');
  assert.equal(hostPort('registry.local'), undefined);
  assert.equal(containerdHostDir('registry.local:5000'), 'registry.local_5000_');
  assert.equal(containerdHostDir('registry.local'), 'registry.local');
  assert.equal(isNtfsSafeName('registry.local:5000'), false);
  assert.equal(isNtfsSafeName('registry.local_5000_'), true);
  assert.equal(isNtfsSafeName('*.example.com'), false);
  assert.equal(isNtfsSafeName('trailing.'), false);
  assert.equal(isWildcard('*.example.com'), true);
  assert.equal(isWildcard('example.com/*'), false);
});

test('wmcoMirrorOrder sorts byte-wise and deduplicates by prefix', () => {
  const src = 'registry.access.redhat.com/ubi9/ubi-minimal';
  assert.deepEqual(wmcoMirrorOrder(src, ['z.io/ubi9/ubi-minimal', 'a.io/ubi9/ubi-minimal', 'a.io/ubi9/ubi-minimal']), [
    'a.io',
    'z.io',
  ]);
  // Upper case sorts before lower case, as in Go.
  assert.deepEqual(wmcoMirrorOrder('r.io', ['b.io', 'B.io']), ['B.io', 'b.io']);
});
