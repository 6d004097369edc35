// The `kubectl-windows` command (kubectl's plugin naming: `kubectl windows …` runs it): the same launcher
// as `kube-windows`, loading the same bundle, which sees by its executable's name (main.ts) that it runs
// as the plugin.
import './launcher';
