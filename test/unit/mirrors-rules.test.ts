import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { only, covered, fixAndRecheck, ids } from '../support/check';

const idms = (entries: string) => `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: mirrors
spec:
  imageDigestMirrors:
${entries.replace(/^/gm, '    ').replace(/ +$/gm, '')}`;

const itms = (entries: string) =>
  idms(entries).replace('ImageDigestMirrorSet', 'ImageTagMirrorSet').replace('imageDigestMirrors', 'imageTagMirrors');

const mirIds = (text: string) => ids(text).filter((id) => id.startsWith('MIR'));

test('a correct IDMS and ITMS raise nothing', () => {
  const ok = `- source: mcr.microsoft.com/oss/kubernetes/pause
  mirrors:
    - mirror.example.com/oss/kubernetes/pause
    - quay.io/org/oss/kubernetes/pause
- source: registry.redhat.io
  mirrors:
    - mirror.example.com/redhat
  mirrorSourcePolicy: NeverContactSource
`;
  assert.deepEqual(mirIds(idms(ok)), []);
  assert.deepEqual(mirIds(itms(ok)), []);
});

test('MIR001 says which repository Windows nodes actually pull (docs example)', () => {
  const text = idms(`- source: registry.access.redhat.com/ubi9/ubi-minimal
  mirrors:
    - example.io/example/ubi-minimal
`);
  const f = only(text, 'MIR001');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'example.io/example/ubi-minimal');
  assert.match(
    f[0].message,
    /pull "registry\.access\.redhat\.com\/ubi9\/ubi-minimal" from "example\.io\/example\/ubi9\/ubi-minimal"/,
  );
  assert.match(f[0].message, /fall back to "registry\.access\.redhat\.com"/);
  assert.match(f[0].message, /ending in "\/ubi9\/ubi-minimal"/);
  assert.deepEqual(f[0].fixes, []);
});

test('MIR001 with NeverContactSource says the pull fails; ITMS too', () => {
  const text = itms(`- source: quay.io/remote-org
  mirrors: [mirror.local/my-org]
  mirrorSourcePolicy: NeverContactSource
`);
  const f = only(text, 'MIR001');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /NeverContactSource the pull fails/);
  assert.match(f[0].message, /from "mirror\.local\/my-org\/remote-org"/);
});

test('MIR001 does not fire for bare-registry sources, exact or org-prefixed suffixes, or wildcards', () => {
  const text = idms(`- source: registry.redhat.io
  mirrors: [mirror.example.com/anything/here]
- source: mcr.microsoft.com/oss/kubernetes/pause
  mirrors: [m.io/x/y/z/oss/kubernetes/pause, mcr.microsoft.com/oss/kubernetes/pause]
- source: "*.example.com"
  mirrors: [m.io/whatever]
`);
  assert.deepEqual(only(text, 'MIR001'), []);
});

test('MIR001 on the WMCO Konflux IDMS of the corpus', () => {
  const file = '/work/shared/corpus/openshift+windows-machine-config-operator/.tekton/images-mirror-set.yaml';
  const text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : idms(`- source: registry.redhat.io/openshift4-wincw/windows-machine-config-rhel9-operator
  mirrors:
    - quay.io/redhat-user-workloads/windows-machine-conf-tenant/windows-machine-config-operator/windows-machine-config-operator-release-5-0
`);
  const f = only(text, 'MIR001');
  assert.equal(f.length, 1);
  assert.match(
    f[0].message,
    /from "quay\.io\/redhat-user-workloads\/windows-machine-conf-tenant\/windows-machine-config-operator\/windows-machine-config-operator-release-5-0\/openshift4-wincw\/windows-machine-config-rhel9-operator"/,
  );
  assert.deepEqual(mirIds(text), ['MIR001']);
});

test('MIR002 flags wildcard sources', () => {
  const text = idms(`- source: "*.example.com"
  mirrors: [mirror.local/example]
`);
  const f = only(text, 'MIR002');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), '"*.example.com"');
  assert.match(f[0].message, /not a legal NTFS name/);
  assert.deepEqual(only(idms(`- source: a.example.com\n  mirrors: [m.local/x]\n`), 'MIR002'), []);
});

test('MIR003 flags sources with a port and names the directory containerd looks for', () => {
  const text = idms(`- source: registry.local:5000/team/app
  mirrors: [mirror.local:5000/team/app]
`);
  const f = only(text, 'MIR003');
  assert.equal(f.length, 1);
  assert.match(f[0].message, /"registry\.local_5000_"/);
  assert.equal(covered(text, f[0]), 'registry.local:5000/team/app');
  // A mirror with a port is fine.
  assert.deepEqual(
    only(idms(`- source: registry.local/team/app\n  mirrors: [mirror.local:5000/team/app]\n`), 'MIR003'),
    [],
  );
});

test('MIR004 flags NeverContactSource without mirrors', () => {
  const text = idms(`- source: registry.redhat.io/ubi9
  mirrorSourcePolicy: NeverContactSource
`);
  const f = only(text, 'MIR004');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(covered(text, f[0]), 'NeverContactSource');
  assert.equal(
    only(idms(`- source: registry.redhat.io/ubi9\n  mirrors: []\n  mirrorSourcePolicy: NeverContactSource\n`), 'MIR004')
      .length,
    1,
  );
  assert.deepEqual(
    only(idms(`- source: registry.redhat.io/ubi9\n  mirrorSourcePolicy: AllowContactingSource\n`), 'MIR004'),
    [],
  );
  assert.deepEqual(
    only(
      idms(`- source: registry.redhat.io/ubi9\n  mirrors: [m.io/ubi9]\n  mirrorSourcePolicy: NeverContactSource\n`),
      'MIR004',
    ),
    [],
  );
});

test('MIR005 duplicate mirror is an error with a fix; duplicate source is a warning', () => {
  const text = idms(`- source: registry.redhat.io/ubi9
  mirrors:
    - a.io/ubi9
    - b.io/ubi9
    - a.io/ubi9
`);
  const f = only(text, 'MIR005');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'error');
  assert.equal(f[0].range.start.line, 10);
  assert.equal(f[0].related?.length, 1);
  // The API server's words (the CRD makes mirrors a set; checked against a real one in test/apiserver-suites).
  assert.match(f[0].message, /^spec\.imageDigestMirrors\[0\]\.mirrors\[2\]: Duplicate value: "a\.io\/ubi9"\. /);
  const { fixed } = fixAndRecheck(text, 'MIR005');
  assert.equal(fixed.match(/a\.io\/ubi9/g)?.length, 1);
  assert.match(fixed, /- a\.io\/ubi9\n\s+- b\.io\/ubi9\n$/);

  const dupSource = idms(`- source: registry.redhat.io/ubi9
  mirrors: [a.io/ubi9]
- source: registry.redhat.io/ubi9
  mirrors: [b.io/ubi9]
`);
  const g = only(dupSource, 'MIR005');
  assert.equal(g.length, 1);
  assert.equal(g[0].severity, 'warning');
  assert.equal(g[0].range.start.line, 8);
  assert.deepEqual(
    only(
      idms(
        `- source: registry.redhat.io/ubi9\n  mirrors: [a.io/ubi9, b.io/ubi9]\n- source: registry.redhat.io/ubi8\n  mirrors: [a.io/ubi8]\n`,
      ),
      'MIR005',
    ),
    [],
  );
});

test('MIR006 notes that WMCO sorts mirrors alphabetically', () => {
  const text = idms(`- source: registry.redhat.io/ubi9
  mirrors:
    - zeta.io/ubi9
    - alpha.io/ubi9
  mirrorSourcePolicy: NeverContactSource
`);
  const f = only(text, 'MIR006');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'info');
  assert.equal(covered(text, f[0]), 'mirrors');
  assert.match(f[0].message, /\("alpha\.io", "zeta\.io"\)/);
  assert.match(f[0].message, /"alpha\.io" also replaces the source/);
  assert.deepEqual(
    only(idms(`- source: registry.redhat.io/ubi9\n  mirrors: [alpha.io/ubi9, zeta.io/ubi9]\n`), 'MIR006'),
    [],
  );
  assert.deepEqual(only(idms(`- source: registry.redhat.io/ubi9\n  mirrors: [zeta.io/ubi9]\n`), 'MIR006'), []);
});

test('MIR007 warns that WMCO ignores ImageContentSourcePolicy', () => {
  const text = `apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata:
  name: icsp
spec:
  repositoryDigestMirrors:
    - source: registry.redhat.io/ubi9
      mirrors: [m.io/ubi9]
`;
  const f = only(text, 'MIR007');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'ImageContentSourcePolicy');
  assert.deepEqual(
    only(text.replace(/  repositoryDigestMirrors:[\s\S]*/, '  repositoryDigestMirrors: []\n'), 'MIR007'),
    [],
  );
});

test('mirror rules ignore objects of other API groups', () => {
  const text = idms(
    `- source: registry.access.redhat.com/ubi9/ubi-minimal\n  mirrors: [example.io/example/ubi-minimal]\n`,
  ).replace('config.openshift.io/v1', 'example.com/v1');
  assert.deepEqual(mirIds(text), []);
});

test('MIR008: NeverContactSource of one repository applies to the whole registry on Windows nodes', () => {
  const text = idms(`- source: registry.access.redhat.com/ubi9/ubi-minimal
  mirrors: [devcluster.openshift.com:5000/ubi9/ubi-minimal]
  mirrorSourcePolicy: AllowContactingSource
- source: registry.access.redhat.com/ubi8/ubi-minimal
  mirrors: [random.io/ubi8/ubi-minimal]
  mirrorSourcePolicy: NeverContactSource
`);
  const f = only(text, 'MIR008');
  assert.equal(f.length, 1);
  assert.equal(f[0].severity, 'warning');
  assert.equal(covered(text, f[0]), 'registry.access.redhat.com/ubi9/ubi-minimal');
  assert.match(
    f[0].message,
    /"registry\.access\.redhat\.com\/ubi9\/ubi-minimal" also never contacts "registry\.access\.redhat\.com"/,
  );
  assert.match(f[0].message, /NeverContactSource of "registry\.access\.redhat\.com\/ubi8\/ubi-minimal"/);
  assert.equal(f[0].related?.length, 1);
});

test('MIR008: an earlier entry without a policy makes WMCO drop NeverContactSource', () => {
  const text = itms(`- source: quay.io/a
  mirrors: [m.io/x/a]
- source: quay.io/b
  mirrors: [m.io/x/b]
  mirrorSourcePolicy: NeverContactSource
`);
  const f = only(text, 'MIR008');
  assert.equal(f.length, 1);
  assert.equal(covered(text, f[0]), 'quay.io/b');
  assert.match(f[0].message, /WMCO ignores this NeverContactSource/);
  assert.match(f[0].message, /earlier entry "quay\.io\/a", which sets none/);
});

test('MIR008 stays quiet for one policy per registry, one repository, or different registries', () => {
  const same = idms(`- source: quay.io/a
  mirrors: [m.io/x/a]
  mirrorSourcePolicy: NeverContactSource
- source: quay.io/b
  mirrors: [m.io/x/b]
  mirrorSourcePolicy: NeverContactSource
- source: r.io/a
  mirrors: [m.io/y/a]
- source: s.io/a
  mirrors: [m.io/z/a]
  mirrorSourcePolicy: NeverContactSource
- source: t.io/a
  mirrors: [m.io/t/a]
- source: t.io/b
  mirrors: [m.io/t/b]
  mirrorSourcePolicy: AllowContactingSource
`);
  assert.deepEqual(only(same, 'MIR008'), []);
  // Never first, then Allow: Never wins for both and WMCO does say so for the Allow entry.
  const neverFirst = idms(`- source: quay.io/a
  mirrors: [m.io/x/a]
  mirrorSourcePolicy: NeverContactSource
- source: quay.io/b
  mirrors: [m.io/x/b]
`);
  assert.equal(only(neverFirst, 'MIR008').length, 1);
  assert.equal(covered(neverFirst, only(neverFirst, 'MIR008')[0]), 'quay.io/b');
});

test('MIR009: sources and mirrors the CRD pattern refuses are errors in the API server’s words, and no other rule reasons about them', () => {
  const text = idms(`- source: registry..example.com/team/app
  mirrors: [mirror.example.com/other/app]
- source: mcr.microsoft.com/windows/servercore
  mirrors:
  - "mirror.example.com/windows/servercore $(whoami)"
  - mirror.example.com/Windows/ServerCore
  mirrorSourcePolicy: NeverContactSource
- source: registry.example.com:5000/ok
  mirrors: [mirror.example.com/ok]
`);
  const f = only(text, 'MIR009');
  assert.equal(f.length, 3);
  assert.ok(f.every((x) => x.severity === 'error'));
  assert.match(
    f[0]!.message,
    /^spec\.imageDigestMirrors\[0\]\.source: Invalid value: "registry\.\.example\.com\/team\/app": spec\.imageDigestMirrors\[0\]\.source in body should match '\^\\\*/,
  );
  assert.equal(covered(text, f[0]!), 'registry..example.com/team/app');
  assert.match(
    f[1]!.message,
    /^spec\.imageDigestMirrors\[1\]\.mirrors\[0\]: Invalid value: "mirror\.example\.com\/windows\/servercore \$\(whoami\)"/,
  );
  assert.match(
    f[2]!.message,
    /^spec\.imageDigestMirrors\[1\]\.mirrors\[1\]: Invalid value: "mirror\.example\.com\/Windows\/ServerCore"/,
  );
  // Without MIR009 the first entry would get MIR001 (the mirror does not keep the path): not now.
  const others = mirIds(text).filter((id) => id !== 'MIR009');
  assert.deepEqual(others, ['MIR003'], 'only the valid third entry (a port) is reasoned about');
  // A wildcard is a valid source but never a valid mirror; ITMS has the same patterns.
  assert.deepEqual(only(itms(`- source: "*.example.com"\n  mirrors: [mirror.example.com/x]\n`), 'MIR009'), []);
  assert.equal(only(itms(`- source: example.com/x\n  mirrors: ["*.example.com"]\n`), 'MIR009').length, 1);
});
