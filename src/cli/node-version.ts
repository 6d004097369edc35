// Whether this Node can run kube-windows: the launchers that users reach through other tools (kubectl's
// plugin, krew's archive, which find `node` on the PATH) say so in words, instead of the bundle failing
// in its own on a Node that is too old.
import { engines } from '../../package.json';

/** The problem with running on Node `version` ("20.11.1"), or undefined when it is new enough (engines.node). */
export function nodeVersionProblem(version: string, needed: string = engines.node): string | undefined {
  const want = /(\d+)\.(\d+)/.exec(needed);
  const have = /^v?(\d+)\.(\d+)/.exec(version);
  if (!want || !have) return undefined;
  const [wantMajor, wantMinor, haveMajor, haveMinor] = [want[1], want[2], have[1], have[2]].map(Number);
  if (haveMajor > wantMajor || (haveMajor === wantMajor && haveMinor >= wantMinor)) return undefined;
  return `Node.js ${wantMajor}.${wantMinor} or newer is needed, and this is ${version.replace(/^v?/, 'v')}`;
}
