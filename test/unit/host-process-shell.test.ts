// The HostProcess pod behind the terminal's fallback: pinned to the node, SYSTEM, host network, the
// PowerShell image of the node's build, and clean by our own rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dump } from 'js-yaml';
import { hostProcessShellPod, powershellImageFor, SHELL_CONTAINER } from '../../src/core/windows/host-process-shell';
import { checkText } from '../../src/core/rules/checker';

const build = (label: string) => ({ 'node.kubernetes.io/windows-build': label, 'kubernetes.io/os': 'windows' });

test('the PowerShell image follows the node build label', () => {
  const tag = (label: string | undefined) => {
    const r = powershellImageFor(label);
    return 'error' in r ? 'error' : r.image;
  };
  assert.equal(tag('10.0.17763'), 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2019');
  assert.equal(tag('10.0.20348'), 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022');
  assert.equal(tag('10.0.25398'), 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022'); // 23H2 runs 2022 images
  assert.equal(tag('10.0.26100'), 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2025');
  assert.equal(tag(undefined), 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022');
  assert.equal(tag('garbage'), 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022');
  assert.equal(tag('10.0.14393'), 'error');
  const missing = powershellImageFor(undefined);
  assert.ok(!('error' in missing) && /no node\.kubernetes\.io\/windows-build label/.test(missing.note));
});

test('the pod is a HostProcess pod pinned to the node, as SYSTEM, with the Windows tolerations', () => {
  const r = hostProcessShellPod({
    nodeName: 'WIN-Node_01.example.com',
    labels: build('10.0.20348'),
    namespace: 'kube-system',
    suffix: 'a1b2c',
  });
  assert.ok(!('error' in r));
  const { pod } = r;
  assert.match(pod.metadata.name, /^kube-windows-shell-win-node-01-example-com-a1b2c$/);
  assert.ok(pod.metadata.name.length <= 63);
  assert.equal(pod.metadata.namespace, 'kube-system');
  const spec = pod.spec as Record<string, unknown> & {
    containers: { name: string; image: string }[];
    tolerations: { key: string; value?: string; effect: string }[];
  };
  assert.equal(spec.nodeName, 'WIN-Node_01.example.com');
  assert.equal(spec.hostNetwork, true);
  assert.deepEqual(spec.securityContext, {
    windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' },
  });
  assert.ok(spec.tolerations.some((t) => t.key === 'os' && t.value === 'Windows' && t.effect === 'NoSchedule'));
  assert.ok(spec.tolerations.some((t) => t.key === 'os' && t.value === 'windows' && t.effect === 'NoSchedule'));
  assert.equal(spec.containers[0]?.name, SHELL_CONTAINER);
  assert.equal(spec.containers[0]?.image, 'mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022');
  assert.equal(typeof spec.activeDeadlineSeconds, 'number');
  const long = hostProcessShellPod({ nodeName: 'x'.repeat(200), namespace: 'kube-system', suffix: 'zz' });
  assert.ok(!('error' in long) && long.pod.metadata.name.length <= 63 && /-zz$/.test(long.pod.metadata.name));
});

test('our own rules find no error in the dumped pod, for every supported build', () => {
  for (const label of ['10.0.17763', '10.0.20348', '10.0.26100']) {
    const r = hostProcessShellPod({
      nodeName: 'win-1',
      labels: build(label),
      namespace: 'kube-system',
      suffix: 'abc12',
    });
    assert.ok(!('error' in r));
    const result = checkText(dump(r.pod, { noRefs: true }));
    assert.equal(result.windowsWorkloads, 1, 'the rules see a Windows workload');
    const errors = result.findings.filter((f) => f.severity === 'error');
    assert.deepEqual(
      errors.map((f) => `${f.ruleId}: ${f.message}`),
      [],
      label,
    );
    assert.deepEqual(result.ruleErrors, []);
  }
});

test('an unsupported build is an error, not a pod', () => {
  const r = hostProcessShellPod({
    nodeName: 'win-1',
    labels: build('10.0.14393'),
    namespace: 'kube-system',
    suffix: 'abc12',
  });
  assert.ok('error' in r && /Windows Server 2019/.test(r.error));
});
