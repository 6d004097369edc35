// Command kubectl-windows is the executable of the kube-windows krew plugin archives. kube-windows is a
// Node.js program; krew installs a platform archive and links its `bin`, which must be an executable
// (on Windows an .exe), so this small launcher finds Node and runs the bundled command line next to it:
//
//	kubectl-windows[.exe]                 this launcher
//	lib/kubectl-windows.js                the plugin's entry (the npm package's dist/kubectl-windows.js)
//	lib/kubectl_complete-windows.js       the same entry under the name of kubectl's completion hook
//	lib/cli.js, lib/cli-main.js           the kube-windows bundle it loads
//
// Started as kubectl_complete-windows (a link users make to this launcher: kubectl runs that name to
// complete a plugin's arguments), it runs the completion entry instead.
// Node is KUBE_WINDOWS_NODE when set, else `node` on the PATH. The entry itself refuses a Node older than
// the one kube-windows needs, saying which it found. Arguments, environment, standard streams and the
// exit code pass through unchanged, so kubectl's conventions reach the plugin as they would reach any.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// nodeEnv names the Node.js executable to use instead of the PATH's.
const nodeEnv = "KUBE_WINDOWS_NODE"

func main() {
	script, err := entry()
	if err != nil {
		fail(err.Error())
	}
	node, err := findNode()
	if err != nil {
		fail(err.Error())
	}
	// run replaces this process with Node (POSIX) or runs it and exits with its code (Windows).
	if err := run(node, append([]string{script}, os.Args[1:]...)); err != nil {
		fail(fmt.Sprintf("cannot run %s: %v", node, err))
	}
}

// entry is lib/kubectl-windows.js beside the real executable: krew starts us through a symlink in its bin
// folder, so the link is resolved first.
func entry() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this executable is: %v", err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	name := "kubectl-windows"
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "kubectl_complete-windows" {
		name = "kubectl_complete-windows"
	}
	script := filepath.Join(filepath.Dir(self), "lib", name+".js")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("%s is missing: reinstall the plugin (kubectl krew install windows)", script)
	}
	return script, nil
}

func findNode() (string, error) {
	if given := os.Getenv(nodeEnv); given != "" {
		if _, err := os.Stat(given); err != nil {
			return "", fmt.Errorf("%s=%s: no such file", nodeEnv, given)
		}
		return given, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("Node.js 20.19 or newer is needed and there is no node on the PATH: install it, or set %s to the node executable", nodeEnv)
	}
	return node, nil
}

func fail(message string) {
	fmt.Fprintf(os.Stderr, "kubectl windows: %s\n", message)
	// 2: an environment error, as kube-windows' own exit codes say.
	os.Exit(2)
}
