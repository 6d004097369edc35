// Where the exact-API validator modules are installed, and which Kubernetes releases they validate.
// A module is a file named kube-windows-validator-v1.N.P.wasm, shipped compressed (.wasm.br, or
// .wasm.gz); it is looked for, in this order, at the path given (`check --validator`, a file or a
// folder), in KUBE_WINDOWS_VALIDATOR (the same), in a `validator` folder beside the running bundle
// (a package built with the component), and in the user's data folder
// (${XDG_DATA_HOME:-~/.local/share}/kube-windows/validator), where an offline install copies it.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';

const MODULE = /^kube-windows-validator-v(\d+)\.(\d+)\.(\d+)\.wasm(\.br|\.gz)?$/;

export interface InstalledValidator {
  /** "1.35" */
  release: string;
  /** "v1.35.4" */
  kubernetes: string;
  path: string;
}

/** The folders and files looked in, first first: `given`, the environment's, the bundle's, the user's. */
export function validatorPlaces(given?: string, env: NodeJS.ProcessEnv = process.env, bundleDir = __dirname): string[] {
  const data = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return [
    ...(given ? [resolve(given)] : []),
    ...(env.KUBE_WINDOWS_VALIDATOR ? [resolve(env.KUBE_WINDOWS_VALIDATOR)] : []),
    join(bundleDir, 'validator'),
    join(data, 'kube-windows', 'validator'),
  ];
}

function modulesAt(place: string): InstalledValidator[] {
  let names: string[];
  let dir = place;
  try {
    if (statSync(place).isDirectory()) names = readdirSync(place);
    else {
      names = [basename(place)];
      dir = resolve(place, '..');
    }
  } catch {
    return [];
  }
  const out: InstalledValidator[] = [];
  for (const name of names.sort()) {
    const m = MODULE.exec(name);
    if (m) out.push({ release: `${m[1]}.${m[2]}`, kubernetes: `v${m[1]}.${m[2]}.${m[3]}`, path: join(dir, name) });
  }
  return out;
}

/** Every validator found, one per release (the first place that has a release wins), oldest release first. */
export function installedValidators(places: string[]): InstalledValidator[] {
  const byRelease = new Map<string, InstalledValidator>();
  for (const place of places)
    for (const v of modulesAt(place)) if (!byRelease.has(v.release)) byRelease.set(v.release, v);
  return [...byRelease.values()].sort((a, b) => Number(a.release.split('.')[1]) - Number(b.release.split('.')[1]));
}

/** A given path that is neither a validator module nor a folder holding one: worth saying before anything runs. */
export function givenPathProblem(given: string): string | undefined {
  if (!existsSync(given)) return `${given} does not exist`;
  if (modulesAt(given).length === 0)
    return `${given} is not a validator module (kube-windows-validator-v1.N.P.wasm, .wasm.br or .wasm.gz) nor a folder holding one`;
  return undefined;
}
