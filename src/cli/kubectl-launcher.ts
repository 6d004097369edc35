// The `kubectl-windows` command (kubectl's plugin naming: `kubectl windows …` runs it): the same launcher
// as `kube-windows`, loading the same bundle, which sees by its executable's name (main.ts) that it runs
// as the plugin. Found through PATH by kubectl (or krew's launcher), it may meet any Node: an old one is
// refused in words.
import { nodeVersionProblem } from './node-version';

const problem = nodeVersionProblem(process.version);
if (problem) {
  process.stderr.write(
    `kubectl windows: ${problem} (${process.execPath}); install a newer Node.js, or set KUBE_WINDOWS_NODE to one (krew's launcher uses it)\n`,
  );
  process.exitCode = 2;
} else void import('./launcher');
