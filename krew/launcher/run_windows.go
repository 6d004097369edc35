//go:build windows

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// run starts Node with the console's streams and exits with its code: Windows has no exec. Ctrl-C reaches
// every process of the console, Node included, so the launcher ignores it and waits for Node to end.
func run(node string, args []string) error {
	signal.Ignore(os.Interrupt)
	cmd := exec.Command(node, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
