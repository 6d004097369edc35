// An image reference read in CEL as core/windows/builds.ts's parseImage reads it: registry and
// repository lowercased, the tag after the last colon past the last slash, the digest dropped, a
// reference without a registry on Docker Hub. The API server refuses an image with leading or trailing
// whitespace, so parseImage's trim has nothing to do at admission.
import { str } from './cel';

export interface ImageCel {
  /** CEL string: the tag, lowercased ('' without one). */
  tag: string;
  /** CEL string: the registry (docker.io when the reference names none). */
  registry: string;
  /** CEL string: the repository path (library/… for a Docker Hub official image). */
  repository: string;
}

/**
 * CEL: `body` (built from the parts) for the image reference `image`, each part worked out once: the
 * reference and the reference without its tag are bound by one-item comprehensions (CEL has no let).
 */
export function withImage(image: string, body: (i: ImageCel) => string): string {
  const tagged = "L.matches(':[^:/]*$')";
  const hasRegistry = "R.matches('^([^/]*[.:][^/]*|localhost)/')";
  const parts: ImageCel = {
    tag: `(${tagged} ? L.substring(L.lastIndexOf(':') + 1) : '')`,
    registry: `(${hasRegistry} ? R.substring(0, R.indexOf('/')) : 'docker.io')`,
    repository: `(${hasRegistry} ? R.substring(R.indexOf('/') + 1) : (R.contains('/') ? R : 'library/' + R))`,
  };
  return `[${image}.lowerAscii().split('@')[0]].map(L, [${tagged} ? L.substring(0, L.lastIndexOf(':')) : L].map(R, ${body(parts)})[0])[0]`;
}

/** CEL bool: the image is `registry`/`repository`. */
export const isRepository = (i: ImageCel, registry: string, repository: string): string =>
  `(${i.registry} == ${str(registry)} && ${i.repository} == ${str(repository)})`;
