// Prepares what the test suite needs from the machine: a real OpenSSH sshd for the SSH transport
// tests. Idempotent and quick when everything is already there; prints one line saying what it did.
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const SSHD = '/usr/sbin/sshd';

function run(cmd, args) {
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (r.status !== 0) {
    const tail = `${r.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${tail}`);
  }
}

function aptListsPresent() {
  // An empty /var/lib/apt/lists (as in slim images) means `apt-get install` cannot find anything yet.
  try {
    return readdirSync('/var/lib/apt/lists').some((n) => n.endsWith('_Packages') || n.endsWith('_Packages.lz4'));
  } catch {
    return false;
  }
}

if (existsSync(SSHD)) {
  console.log(`test-env: ${SSHD} present, nothing to do`);
} else if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
  console.log(`test-env: ${SSHD} missing and not root: the SSH transport tests will be skipped`);
} else if (!existsSync('/usr/bin/apt-get')) {
  console.log(`test-env: ${SSHD} missing and no apt-get: the SSH transport tests will fail`);
} else {
  let updated = false;
  try {
    if (!aptListsPresent()) {
      run('apt-get', ['update']);
      updated = true;
    }
    try {
      run('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server', 'openssh-client']);
    } catch (e) {
      if (updated) throw e;
      // Stale package lists: refresh once and try again.
      run('apt-get', ['update']);
      updated = true;
      run('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server', 'openssh-client']);
    }
    console.log(`test-env: installed openssh-server and openssh-client${updated ? ' (after apt-get update)' : ''}`);
  } catch (e) {
    console.log(
      `test-env: could not install openssh-server (the SSH transport tests will fail): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
