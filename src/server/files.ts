import { existsSync } from 'node:fs';
import picomatch from 'picomatch';
import { chartRootOf } from '../core/helm/check';
import { uriPath } from './uri';
import { NOT_KUBERNETES, type KubeWindowsSettings } from '../shared/protocol';

/**
 * Which documents the server analyses: YAML that holds Kubernetes objects, recognised by content
 * (an `apiVersion` and a `kind`, or an OpenShift install-config), within the include/exclude globs.
 */
export class FileFilter {
  private include: (p: string) => boolean;
  private exclude: (p: string) => boolean;

  constructor(files: KubeWindowsSettings['files']) {
    this.include = picomatch(files.include, { dot: true });
    this.exclude = picomatch(files.exclude, { dot: true });
  }

  /** Undefined when the document is analysed, else why not (for the status item). */
  skipReason(uri: string, text: string): string | undefined {
    const path = uriPath(uri);
    if (path !== undefined) {
      if (!this.include(path)) return 'outside kubeWindows.files.include';
      if (this.exclude(path)) return 'in kubeWindows.files.exclude';
      if (isHelmTemplate(path, text)) return 'a Helm template (render it with helm template to check it)';
    }
    if (!looksLikeKubernetes(text)) return NOT_KUBERNETES;
    return undefined;
  }
}

// At the start of a line (any indentation, as in List items), so prose and comments do not count.
const API_VERSION = /^[ \t-]*apiVersion:[ \t]*\S/m;
const KIND = /^[ \t-]*kind:[ \t]*\S/m;
const PLATFORM = /^platform:/m;

function looksLikeKubernetes(text: string): boolean {
  return API_VERSION.test(text) && (KIND.test(text) || PLATFORM.test(text));
}

/**
 * A file in a templates/ folder that uses template syntax, outside a chart (those are analysed): not YAML until
 * rendered.
 */
function isHelmTemplate(path: string, text: string): boolean {
  return /(^|\/)templates\/[^/]+$/.test(path) && text.includes('{{') && chartRootOf(path, existsSync) === undefined;
}
