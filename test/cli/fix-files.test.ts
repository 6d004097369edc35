// `check --fix` on files that are not plain writable files: a read-only file is refused with a
// clear line and left as it was, a symlink has the file it points to fixed (the link stays a link),
// a directory named x.yaml is a folder and nothing is written into it, and no temporary file is
// ever left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/run-cli';

// WIN002 is fixable (the key is deleted).
const FIXABLE = `apiVersion: v1
kind: Pod
metadata:
  name: p # the pod
spec:
  nodeSelector:
    kubernetes.io/os: windows
  containers:
    - name: c
      image: mcr.microsoft.com/windows/nanoserver:ltsc2022
      securityContext:
        runAsUser: 1000
`;

test('check --fix: read-only refused, symlink followed, a directory named x.yaml untouched, no temp file left', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-fix-files-'));
  writeFileSync(join(dir, 'real.yaml'), FIXABLE);
  symlinkSync('real.yaml', join(dir, 'link.yaml'));
  writeFileSync(join(dir, 'ro.yaml'), FIXABLE);
  chmodSync(join(dir, 'ro.yaml'), 0o444);
  mkdirSync(join(dir, 'x.yaml'));

  const r = await runCli(['check', '--fix', join(dir, 'link.yaml'), join(dir, 'ro.yaml'), join(dir, 'x.yaml')]);
  assert.equal(r.code, 2, 'a file that could not be written is an I/O error');
  assert.match(r.stderr, /ro\.yaml: fixes not written: the file is read-only; the file is unchanged/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);

  assert.equal(readFileSync(join(dir, 'ro.yaml'), 'utf8'), FIXABLE, 'the read-only file is as it was');
  assert.ok(lstatSync(join(dir, 'link.yaml')).isSymbolicLink(), 'the link is still a link');
  const fixed = readFileSync(join(dir, 'real.yaml'), 'utf8');
  assert.doesNotMatch(fixed, /runAsUser/);
  assert.match(fixed, /name: p # the pod/, 'comments kept');
  assert.deepEqual(readdirSync(join(dir, 'x.yaml')), [], 'nothing written into the directory');
  assert.deepEqual(readdirSync(dir).sort(), ['link.yaml', 'real.yaml', 'ro.yaml', 'x.yaml'], 'no temporary file left');
});
