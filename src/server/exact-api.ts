// kubeWindows.exactApi in the language server: the exact-API validator of the release the rules
// decide by (the setting's, else the connected cluster's, else the default), found where the CLI
// finds it (shared/validator-files.ts), loaded once per module file and kept. What is missing is
// said once per release, in one line.
import { effectiveRelease } from '../core/kubernetes-release';
import type { ClusterSnapshot } from '../core/rules/facts';
import type { KubeWindowsSettings } from '../shared/protocol';
import { installedValidators, validatorPlaces } from '../shared/validator-files';
import { loadValidator, type Validator } from '../shared/validator-runner';

export class ExactApiLoader {
  private readonly loaded = new Map<string, Promise<Validator | undefined>>();
  private readonly told = new Set<string>();

  constructor(private readonly tell: (message: string) => void) {}

  /** The validator these settings ask for, or undefined (the setting is off, or none is installed for the release). */
  validatorFor(
    settings: Pick<KubeWindowsSettings, 'exactApi' | 'kubernetesVersion'>,
    cluster: ClusterSnapshot | undefined,
  ): Promise<Validator | undefined> {
    if (!settings.exactApi) return Promise.resolve(undefined);
    const release = effectiveRelease(settings.kubernetesVersion || undefined, cluster);
    const places = validatorPlaces();
    const found = installedValidators(places).find((v) => v.release === release);
    if (!found) {
      this.once(
        release,
        `kubeWindows.exactApi: no validator for Kubernetes ${release} is installed (looked in ${places.join(', ')}); the rules alone are shown. See docs/exact-api.md.`,
      );
      return Promise.resolve(undefined);
    }
    let validator = this.loaded.get(found.path);
    if (!validator) {
      validator = loadValidator(found.path, found.kubernetes).catch((err: unknown) => {
        this.once(
          found.path,
          `kubeWindows.exactApi: the validator ${found.path} could not be loaded (${err instanceof Error ? err.message : String(err)}); the rules alone are shown.`,
        );
        return undefined;
      });
      this.loaded.set(found.path, validator);
    }
    return validator;
  }

  private once(key: string, message: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.tell(message);
  }
}
