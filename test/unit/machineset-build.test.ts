// The Windows MachineSet builder against WMCO's own documented examples, per platform: made from the
// Linux worker MachineSet the installer writes, the output (parsed YAML, not text) equals WMCO's
// example filled with the same cluster's values; the image, the name and the platform are checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import {
  buildWindowsMachineSet,
  defaultMachineSetName,
  imageProblem,
  isLinuxWorkerMachineSet,
  isWindowsMachineSet,
  machineSetFromText,
  machineSetYaml,
  MachineSetInputError,
  platformRefusal,
  nameProblem,
  parseImage,
  type MachineApiObject,
} from '../../src/core/openshift/windows-machineset';
import { CLUSTER, INFRA, linuxWorkerMachineSet, PLATFORMS, wmcoReference } from '../support/machine-api-seed';
import { checkText } from '../../src/core/rules/checker';

for (const platform of PLATFORMS) {
  test(`${platform}: made from the installer's Linux worker MachineSet, the YAML parses to WMCO's documented Windows MachineSet`, () => {
    const from = linuxWorkerMachineSet(platform) as MachineApiObject;
    assert.equal(isLinuxWorkerMachineSet(from), true);
    assert.equal(isWindowsMachineSet(from), false);
    const built = buildWindowsMachineSet({
      platform,
      infrastructureName: INFRA,
      from,
      image: CLUSTER[platform].windowsImage,
      taken: [from.metadata.name],
    });
    assert.equal(built.name, CLUSTER[platform].windowsName);
    const yaml = machineSetYaml(built);
    assert.deepEqual(parseYaml(yaml), wmcoReference(platform));
    assert.deepEqual(built.object, wmcoReference(platform), 'the object sent is the YAML shown');
    assert.equal(isWindowsMachineSet(built.object), true);
    // Nothing of the old object: no uid, resourceVersion, status, annotations, owner, managed fields.
    assert.doesNotMatch(
      yaml,
      /\buid:|resourceVersion|generation|creationTimestamp|managedFields|ownerReferences|annotations|last-applied|autoscaler|worker-user-data\n|status:/,
    );
    // The Linux object is left as it was.
    assert.equal(
      (from.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels[
        'machine.openshift.io/os-id'
      ],
      undefined,
    );
  });
}

test('the YAML carries short review comments: the image (with how to find it), the size, the user data, the name limit where there is one', () => {
  const aws = machineSetYaml(
    buildWindowsMachineSet({
      platform: 'AWS',
      infrastructureName: INFRA,
      from: linuxWorkerMachineSet('AWS') as MachineApiObject,
      image: CLUSTER.AWS.windowsImage,
    }),
  );
  assert.match(
    aws,
    /^# Windows MachineSet for AWS, made by kube-windows from the Linux MachineSet test-x7k2p-worker-us-east-2a/,
  );
  assert.match(
    aws,
    /# The Windows image\. AMIs differ per region; .*aws ec2 describe-images --region us-east-2 --owners amazon --filters "Name=name,Values=Windows_Server-2022-English-Core-Base-\*" --query "reverse\(sort_by\(Images, &CreationDate\)\)\[0\]\.ImageId" --output text\n\s+ami:/,
  );
  assert.match(aws, /# Copied from test-x7k2p-worker-us-east-2a; .*\n\s+instanceType: m5a\.large/);
  assert.match(aws, /# Written by WMCO; the Linux worker-user-data .*\n\s+userDataSecret:/);
  assert.match(
    aws,
    /# WMCO configures only Machines labelled exactly "Windows"\.\n\s+machine\.openshift\.io\/os-id: Windows/,
  );
  const azure = machineSetYaml(
    buildWindowsMachineSet({
      platform: 'Azure',
      infrastructureName: INFRA,
      from: linuxWorkerMachineSet('Azure') as MachineApiObject,
      image: CLUSTER.Azure.windowsImage,
    }),
  );
  assert.match(
    azure,
    /# On Azure Windows machine names have at most 15 characters: this name at most 9\.\n\s+name: winworker/,
  );
  assert.match(azure, /az vm image list --all --location centralus --publisher MicrosoftWindowsServer/);
  assert.match(azure, /# osType Windows: .*\n\s+osDisk:/);
});

test("the image in each platform's own form; anything else is a usage error that says how to find one", () => {
  assert.deepEqual(parseImage('AWS', 'ami-0123456789abcdef0'), { ami: { id: 'ami-0123456789abcdef0' } });
  assert.deepEqual(parseImage('AWS', 'ami-1a2b3c4d'), { ami: { id: 'ami-1a2b3c4d' } });
  assert.deepEqual(
    parseImage('Azure', 'MicrosoftWindowsServer:WindowsServer:2022-datacenter-smalldisk:20348.2849.241109'),
    {
      image: {
        offer: 'WindowsServer',
        publisher: 'MicrosoftWindowsServer',
        resourceID: '',
        sku: '2022-datacenter-smalldisk',
        version: '20348.2849.241109',
      },
    },
  );
  const gallery =
    '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/galleries/g/images/win2022/versions/1.0.0';
  assert.deepEqual(parseImage('Azure', gallery), {
    image: { offer: '', publisher: '', resourceID: gallery, sku: '', version: '' },
  });
  assert.deepEqual(parseImage('GCP', 'projects/windows-cloud/global/images/windows-server-2022-dc-core-v20241112'), {
    image: 'projects/windows-cloud/global/images/windows-server-2022-dc-core-v20241112',
  });
  assert.deepEqual(parseImage('VSphere', 'windows-golden-images/ws2022'), { template: 'windows-golden-images/ws2022' });
  assert.deepEqual(parseImage('Nutanix', 'nutanix-windows-server-2022'), {
    image: { type: 'name', name: 'nutanix-windows-server-2022' },
  });

  const usage = (platform: Parameters<typeof parseImage>[0], image: string, re: RegExp): void => {
    assert.throws(
      () => parseImage(platform, image, { region: 'eu-west-1' }),
      (e: unknown) => e instanceof MachineSetInputError && e.kind === 'usage' && re.test(e.message),
      `${platform} ${image}`,
    );
  };
  usage(
    'AWS',
    'ami-xyz',
    /an AMI id: ami- and 8 or 17 hexadecimal digits\. AMIs differ per region; .*--region eu-west-1/,
  );
  usage('AWS', 'Windows_Server-2022-English-Core-Base-2024.11.13', /an AMI id/);
  usage('Azure', 'MicrosoftWindowsServer:WindowsServer:2022-datacenter', /a URN, publisher:offer:sku:version/);
  usage('Azure', 'RedHat:rhcos:basic:latest', /looks like a Linux \(RHCOS\) image/);
  usage('VSphere', 'test-x7k2p-rhcos-generated-region-generated-zone', /Linux \(RHCOS\)/);
  usage('GCP', 'projects/windows cloud/x', /spaces, quotes or control characters/);
  usage('Nutanix', '', /empty/);
  usage('Nutanix', 'img"; rm -rf /', /quotes/);
});

test("names: the docs' defaults, numbered when taken, and the 9-character limit on Azure and vSphere", () => {
  const aws = linuxWorkerMachineSet('AWS') as MachineApiObject;
  assert.equal(defaultMachineSetName('AWS', INFRA, aws), `${INFRA}-windows-worker-us-east-2a`);
  assert.equal(
    defaultMachineSetName('AWS', INFRA, aws, [`${INFRA}-windows-worker-us-east-2a`]),
    `${INFRA}-windows-worker-us-east-2a-2`,
  );
  // A Linux MachineSet not named by the installer: the zone from its provider spec.
  assert.equal(
    defaultMachineSetName('AWS', INFRA, linuxWorkerMachineSet('AWS', { name: 'big-workers' }) as MachineApiObject),
    `${INFRA}-windows-worker-us-east-2a`,
  );
  assert.equal(
    defaultMachineSetName('GCP', INFRA, linuxWorkerMachineSet('GCP', { name: 'gpu' }) as MachineApiObject),
    `${INFRA}-windows-worker-a`,
  );
  assert.equal(
    defaultMachineSetName('Azure', INFRA, linuxWorkerMachineSet('Azure') as MachineApiObject, ['winworker']),
    'winwrkr-2',
  );
  assert.equal(nameProblem('Azure', 'winworker'), undefined);
  assert.match(nameProblem('VSphere', 'winworkers') ?? '', /at most 9 characters/);
  assert.match(nameProblem('AWS', 'Win_Worker') ?? '', /lowercase letters, digits and "-"/);
  assert.match(nameProblem('AWS', 'a'.repeat(64)) ?? '', /at most 63/);
  assert.throws(
    () =>
      buildWindowsMachineSet({
        platform: 'VSphere',
        infrastructureName: INFRA,
        from: linuxWorkerMachineSet('VSphere') as MachineApiObject,
        image: 'ws2022',
        name: 'windows-workers',
      }),
    (e: unknown) =>
      e instanceof MachineSetInputError &&
      e.kind === 'usage' &&
      /--name "windows-workers": on vSphere Windows machine names are limited to 15 characters/.test(e.message),
  );
  const named = buildWindowsMachineSet({
    platform: 'AWS',
    infrastructureName: INFRA,
    from: aws,
    image: CLUSTER.AWS.windowsImage,
    name: 'win-a',
    replicas: 3,
  });
  const spec = named.object.spec as {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> } };
  };
  assert.equal(spec.replicas, 3);
  for (const [k, v] of Object.entries(spec.selector.matchLabels))
    assert.equal(spec.template.metadata.labels[k], v, `selector ${k} matches the template`);
  assert.equal(spec.selector.matchLabels['machine.openshift.io/cluster-api-machineset'], 'win-a');
});

test('refused: a platform without Windows MachineSets, no infrastructure name, a Linux MachineSet without a provider spec', () => {
  const from = linuxWorkerMachineSet('AWS') as MachineApiObject;
  for (const platform of ['BareMetal', 'None', 'OpenStack', undefined]) {
    assert.throws(
      () => buildWindowsMachineSet({ platform, infrastructureName: INFRA, from, image: 'ami-1a2b3c4d' }),
      (e: unknown) =>
        e instanceof MachineSetInputError &&
        e.kind === 'refused' &&
        /Windows MachineSets are made on AWS, Azure, GCP, vSphere and Nutanix; this cluster's platform is/.test(
          e.message,
        ) &&
        /Bring-Your-Own-Host/.test(e.message),
    );
  }
  assert.throws(
    () => buildWindowsMachineSet({ platform: 'AWS', infrastructureName: undefined, from, image: 'ami-1a2b3c4d' }),
    /no status\.infrastructureName/,
  );
  const bare = { metadata: { name: 'odd' }, spec: { template: { spec: {} } } };
  assert.throws(
    () => buildWindowsMachineSet({ platform: 'AWS', infrastructureName: INFRA, from: bare, image: 'ami-1a2b3c4d' }),
    /has no spec\.template\.spec\.providerSpec\.value/,
  );
  assert.throws(
    () =>
      buildWindowsMachineSet({ platform: 'AWS', infrastructureName: INFRA, from, image: 'ami-1a2b3c4d', replicas: -1 }),
    /--replicas/,
  );
});

test('which MachineSets are Windows ones and which are Linux workers', () => {
  const ms = (labels: Record<string, string>): MachineApiObject => ({
    metadata: { name: 'x' },
    spec: { template: { metadata: { labels } } },
  });
  assert.equal(isWindowsMachineSet(ms({ 'machine.openshift.io/os-id': 'Windows' })), true);
  assert.equal(
    isWindowsMachineSet(ms({ 'machine.openshift.io/os-id': 'windows' })),
    true,
    'a misspelt label is still meant as Windows',
  );
  assert.equal(
    isLinuxWorkerMachineSet(
      ms({
        'machine.openshift.io/cluster-api-machine-role': 'infra',
        'machine.openshift.io/cluster-api-machine-type': 'infra',
      }),
    ),
    false,
  );
  assert.equal(
    isLinuxWorkerMachineSet(
      ms({
        'machine.openshift.io/cluster-api-machine-role': 'worker',
        'machine.openshift.io/cluster-api-machine-type': 'worker',
      }),
    ),
    true,
  );
});

// The create command and the rules are one product: what the builder writes passes `check`.
for (const platform of PLATFORMS) {
  test(`${platform}: the built Windows MachineSet gets no error or warning from the MachineSet rules, offline and against a healthy 4.16 cluster`, () => {
    const from = linuxWorkerMachineSet(platform) as MachineApiObject;
    const yaml = machineSetYaml(
      buildWindowsMachineSet({
        platform,
        infrastructureName: INFRA,
        from,
        image: CLUSTER[platform].windowsImage,
        taken: [from.metadata.name],
      }),
    );
    const openshift = {
      version: '4.16.3',
      platform,
      infrastructureName: INFRA,
      wmcoInstalled: true,
      cloudPrivateKey: true,
      networkType: 'OVNKubernetes',
      hybridOverlay: true,
    };
    for (const options of [
      {},
      { cluster: { name: 'c', flavour: 'openshift' as const, windowsNodes: [], runtimeClasses: [], openshift } },
    ]) {
      const loud = checkText(yaml, options).findings.filter((f) => f.severity !== 'info');
      assert.deepEqual(
        loud.map((f) => `${f.ruleId}: ${f.message}`),
        [],
      );
    }
    // And the rules do see it as a Windows MachineSet: without the user-data secret it is an error.
    const broken = yaml.replace('windows-user-data', 'worker-user-data');
    assert.ok(checkText(broken).findings.some((f) => f.ruleId === 'WIN087' && f.severity === 'error'));
  });
}

test('imageProblem: one sentence for a prompt (no --image, no help), undefined for an image in the platform form', () => {
  assert.equal(imageProblem('AWS', CLUSTER.AWS.windowsImage), undefined);
  assert.equal(imageProblem('AWS', 'ami-12'), 'On AWS the image is an AMI id: ami- and 8 or 17 hexadecimal digits.');
  assert.match(
    imageProblem('GCP', 'projects/rhcos-cloud/global/images/rhcos-418') ?? '',
    /^This looks like a Linux \(RHCOS\) image/,
  );
  assert.match(imageProblem('Azure', 'WindowsServer:2022') ?? '', /^On Azure the image is a URN/);
  assert.match(imageProblem('VSphere', '') ?? '', /^Not an image of this platform/);
  // The CLI's error carries the same reason, with the option and how to find one.
  assert.throws(
    () => parseImage('AWS', 'ami-12'),
    /^MachineSetInputError: --image "ami-12": on AWS the image is an AMI id.*aws ec2 describe-images/,
  );
});

test('platformRefusal: the five platforms and BYOH instead, for a platform or none', () => {
  assert.match(
    platformRefusal('BareMetal').message,
    /AWS, Azure, GCP, vSphere and Nutanix; this cluster's platform is "BareMetal"\. .*kube-windows join/,
  );
  assert.match(platformRefusal(undefined).message, /platform is unknown \(the Infrastructure object has no platform\)/);
  assert.equal(platformRefusal('None').kind, 'refused');
});

test('machineSetFromText: the YAML of the builder reads back to its object; the namespace defaults; what is not one MachineSet is a usage error', () => {
  const built = buildWindowsMachineSet({
    platform: 'AWS',
    infrastructureName: INFRA,
    from: linuxWorkerMachineSet('AWS') as unknown as MachineApiObject,
    image: CLUSTER.AWS.windowsImage,
  });
  const read = machineSetFromText(machineSetYaml(built));
  assert.equal(read.name, built.name);
  assert.deepEqual(read.object, built.object);
  const bare = machineSetFromText(
    'apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata:\n  name: w\nspec:\n  replicas: 1\n',
  );
  assert.equal(bare.object.metadata.namespace, 'openshift-machine-api');
  for (const [text, why] of [
    ['', /0 YAML documents/],
    ['kind: MachineSet\nmetadata: {name: w}\n', /it is no apiVersion MachineSet/],
    ['apiVersion: machine.openshift.io/v1beta1\nkind: MachineSet\nmetadata: {}\n', /no metadata\.name/],
    ['- a\n', /not a mapping/],
  ] as const) {
    assert.throws(
      () => machineSetFromText(text),
      (err: unknown) => err instanceof MachineSetInputError && err.kind === 'usage' && why.test(err.message),
      text,
    );
  }
});
