//go:build !windows

package main

import (
	"os"
	"syscall"
)

// run becomes Node (execve), as kubectl itself execs a plugin: signals, the terminal and the exit code are
// Node's own, with no process in between.
func run(node string, args []string) error {
	return syscall.Exec(node, append([]string{node}, args...), os.Environ())
}
