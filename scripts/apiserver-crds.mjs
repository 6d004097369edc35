// The OpenShift, OLM and policy report CustomResourceDefinitions the real-API-server tests need,
// installed from the manifests that ship inside the Go modules github.com/openshift/api,
// github.com/operator-framework/api, github.com/kyverno/kyverno (wgpolicyk8s.io PolicyReports) and
// github.com/openreports/reports-api (openreports.io Reports): `go mod download -json <module>@<version>` puts each pinned
// version in the Go module cache (once; later runs find it there), and the YAML is sent to the API
// server as it is, so the schemas are the published ones, never retyped. Test-only: nothing ships.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest } from './apiserver.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Pinned module versions and the CRD manifests taken from each (paths inside the module). */
export const CRD_SOURCES = [
  {
    module: 'github.com/openshift/api',
    // A commit of openshift/api's master of October 2025 (OpenShift 4.21 development), as pinned by
    // OpenShift projects' own go.mod files. The -Default variants are the schemas a cluster without
    // TechPreview feature gates serves.
    version: 'v0.0.0-20251015095338-264e80a2b6e7',
    files: [
      'config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
      'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml',
      'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_networks.crd.yaml',
      'config/v1/zz_generated.crd-manifests/0000_03_config-operator_01_proxies.crd.yaml',
      'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_imagedigestmirrorsets.crd.yaml',
      'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_imagetagmirrorsets.crd.yaml',
      'operator/v1/zz_generated.crd-manifests/0000_70_network_01_networks.crd.yaml',
      'operator/v1alpha1/zz_generated.crd-manifests/0000_10_config-operator_01_imagecontentsourcepolicies.crd.yaml',
      'machine/v1beta1/zz_generated.crd-manifests/0000_10_machine-api_01_machinesets-Default.crd.yaml',
      'machine/v1beta1/zz_generated.crd-manifests/0000_10_machine-api_01_machines-Default.crd.yaml',
      'machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigs.crd.yaml',
    ],
  },
  {
    module: 'github.com/operator-framework/api',
    version: 'v0.36.0',
    files: [
      'crds/operators.coreos.com_subscriptions.yaml',
      'crds/operators.coreos.com_clusterserviceversions.yaml',
      'crds/operators.coreos.com_operatorgroups.yaml',
      'crds/operators.coreos.com_installplans.yaml',
    ],
  },
  // `check --write-reports`: PolicyReport/ClusterPolicyReport (wgpolicyk8s.io/v1alpha2) as Kyverno
  // publishes them, and their successor Report/ClusterReport (openreports.io/v1alpha1).
  {
    module: 'github.com/kyverno/kyverno',
    version: 'v1.19.1',
    files: [
      'config/crds/policyreport/wgpolicyk8s.io_policyreports.yaml',
      'config/crds/policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml',
    ],
  },
  {
    module: 'github.com/openreports/reports-api',
    version: 'v0.2.1',
    files: ['config/crd/openreports.io_reports.yaml', 'config/crd/openreports.io_clusterreports.yaml'],
  },
];

/** The module's directory in the Go module cache, downloading it through the Go module proxy the first time. */
export function moduleDir(module, version) {
  const go = process.env.GO || 'go';
  // Outside any module (a go.mod in a parent directory would bring its own requirements along).
  const r = spawnSync(go, ['mod', 'download', '-json', `${module}@${version}`], {
    cwd: tmpdir(),
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=mod', GO111MODULE: 'on' },
  });
  if (r.error)
    throw new Error(
      `The OpenShift CRDs for the test API server come from the Go module ${module}, and \`${go}\` could not be run (${r.error.code}); install Go, or set GO to its path.`,
    );
  let info;
  try {
    info = JSON.parse(r.stdout);
  } catch {
    info = undefined;
  }
  if (r.status !== 0 || !info?.Dir) {
    const why = info?.Error ?? (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ');
    throw new Error(`go mod download ${module}@${version} failed: ${why}. Is the Go module proxy reachable?`);
  }
  return info.Dir;
}

/** Each manifest as { module, version, path, name, text }, read from the module cache. */
export function crdManifests() {
  const out = [];
  for (const src of CRD_SOURCES) {
    const dir = moduleDir(src.module, src.version);
    for (const f of src.files) {
      const path = join(dir, f);
      if (!existsSync(path))
        throw new Error(
          `${src.module}@${src.version} has no ${f}; the pinned version and the file list in scripts/apiserver-crds.mjs disagree.`,
        );
      const text = readFileSync(path, 'utf8');
      const name = /^metadata:\n(?:[ ].*\n)*?[ ]{2}name: (\S+)/m.exec(text)?.[1];
      if (!name)
        throw new Error(`${src.module}/${f} does not look like a CustomResourceDefinition (no metadata.name).`);
      out.push({ module: src.module, version: src.version, path: f, name, text });
    }
  }
  return out;
}

/**
 * Creates the CRDs (an existing one is left alone) and waits until each is Established, so that
 * its resources are served. Resolves to { count, names, ms }.
 */
export async function installCrds(api, { log = () => {}, timeoutMs = 60_000 } = {}) {
  const started = Date.now();
  const manifests = crdManifests();
  for (const m of manifests) {
    const r = await apiRequest(api, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      method: 'POST',
      body: m.text,
      contentType: 'application/yaml',
    });
    if (r.status !== 201 && r.status !== 409)
      throw new Error(
        `Installing the CRD ${m.name} (${m.module}/${m.path}) failed: HTTP ${r.status} ${r.body?.message ?? r.body}`,
      );
  }
  for (const m of manifests) {
    let crd;
    for (;;) {
      const r = await apiRequest(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${m.name}`);
      const established =
        r.status === 200 &&
        (r.body?.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
      if (established) {
        crd = r.body;
        break;
      }
      if (Date.now() - started > timeoutMs)
        throw new Error(`The CRD ${m.name} was not Established within ${timeoutMs / 1000}s (HTTP ${r.status}).`);
      await sleep(100);
    }
    // Established is not yet served: right after it, requests may get "429 storage is
    // (re)initializing". Wait until every served version lists.
    for (const v of crd.spec.versions.filter((x) => x.served)) {
      for (;;) {
        const r = await apiRequest(api, `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}?limit=1`);
        if (r.status === 200) break;
        if (Date.now() - started > timeoutMs)
          throw new Error(
            `The CRD ${m.name} is Established but ${crd.spec.group}/${v.name} ${crd.spec.names.plural} did not list within ${timeoutMs / 1000}s (HTTP ${r.status}).`,
          );
        await sleep(100);
      }
    }
  }
  const ms = Date.now() - started;
  log(
    `installed ${manifests.length} CRDs from ${CRD_SOURCES.map((s) => `${s.module}@${s.version}`).join(' and ')} in ${(ms / 1000).toFixed(1)}s`,
  );
  return { count: manifests.length, names: manifests.map((m) => m.name), ms };
}
