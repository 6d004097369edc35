// Command kube-apiserver-kw is a test-only Kubernetes API server for the
// kube-windows test suites: the real kube-apiserver of the pinned Kubernetes
// release with a single-member etcd embedded in the same process.
//
// Usage:
//
//	kube-apiserver-kw --etcd-data-dir DIR [harness flags] -- [kube-apiserver flags]
//
// Everything after "--" is handed to the kube-apiserver command unchanged;
// --etcd-servers is added, pointing at the embedded etcd. The process stops
// on SIGINT or SIGTERM (the API server shuts down first, then etcd) and, with
// --exit-on-stdin-eof, when its standard input closes, so that a test runner
// that dies does not leave it behind.
//
// Never shipped: it lives with the tests and is built on demand by
// scripts/apiserver.mjs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"time"
	_ "time/tzdata" // CronJob time zones, as the upstream command has it

	"go.etcd.io/etcd/server/v3/embed"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

type harnessFlags struct {
	etcdDataDir    string
	etcdHost       string
	etcdLogLevel   string
	etcdFsync      bool
	etcdStartWait  time.Duration
	exitOnStdinEOF bool
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("kube-apiserver-kw", flag.ContinueOnError)
	var hf harnessFlags
	fs.StringVar(&hf.etcdDataDir, "etcd-data-dir", "", "directory for the embedded etcd's data (required)")
	fs.StringVar(&hf.etcdHost, "etcd-host", "127.0.0.1", "loopback address the embedded etcd listens on (ports are chosen by the kernel)")
	fs.StringVar(&hf.etcdLogLevel, "etcd-log-level", "error", "log level of the embedded etcd: debug, info, warn, error")
	fs.BoolVar(&hf.etcdFsync, "etcd-fsync", false, "let etcd fsync its log and database (off by default: test data is disposable)")
	fs.DurationVar(&hf.etcdStartWait, "etcd-start-timeout", 60*time.Second, "how long to wait for the embedded etcd to become ready")
	fs.BoolVar(&hf.exitOnStdinEOF, "exit-on-stdin-eof", false, "shut down when standard input reaches end of file")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: kube-apiserver-kw --etcd-data-dir DIR [flags] -- [kube-apiserver flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if hf.etcdDataDir == "" {
		fmt.Fprintln(os.Stderr, "kube-apiserver-kw: --etcd-data-dir is required")
		fs.Usage()
		return 2
	}

	etcd, clientURL, err := startEtcd(hf)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kube-apiserver-kw: embedded etcd did not start: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "kube-apiserver-kw: embedded etcd ready at %s (data in %s)\n", clientURL, hf.etcdDataDir)

	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(append([]string{"--etcd-servers=" + clientURL}, fs.Args()...))

	// The API server command installs its own SIGINT/SIGTERM handler and
	// returns after a graceful shutdown. A failing etcd or a closed stdin
	// asks for that same shutdown, once.
	var once sync.Once
	shutdown := func(why string) {
		once.Do(func() {
			fmt.Fprintf(os.Stderr, "kube-apiserver-kw: %s, shutting down\n", why)
			genericapiserver.RequestShutdown()
		})
	}
	go func() {
		if err, ok := <-etcd.Err(); ok && err != nil {
			shutdown(fmt.Sprintf("embedded etcd failed: %v", err))
		}
	}()
	if hf.exitOnStdinEOF {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			shutdown("standard input closed")
		}()
	}

	code := cli.Run(cmd)
	once.Do(func() {}) // the API server has stopped: nothing more to ask

	closed := make(chan struct{})
	go func() { etcd.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		fmt.Fprintln(os.Stderr, "kube-apiserver-kw: embedded etcd did not close within 10s")
	}
	fmt.Fprintf(os.Stderr, "kube-apiserver-kw: stopped (exit code %d)\n", code)
	return code
}

// startEtcd starts a single-member etcd on kernel-chosen loopback ports and
// returns it with the URL its clients should use.
func startEtcd(hf harnessFlags) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Name = "kube-windows-test"
	cfg.Dir = hf.etcdDataDir
	cfg.LogLevel = hf.etcdLogLevel
	cfg.UnsafeNoFsync = !hf.etcdFsync

	// Port 0 everywhere: the kernel picks free ports; the peer port is never
	// dialled (there is one member), the client port is read back below.
	anyPort := url.URL{Scheme: "http", Host: hf.etcdHost + ":0"}
	cfg.ListenClientUrls = []url.URL{anyPort}
	cfg.AdvertiseClientUrls = []url.URL{anyPort}
	cfg.ListenPeerUrls = []url.URL{anyPort}
	cfg.AdvertisePeerUrls = []url.URL{anyPort}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// The JSON gateway would dial the listen address as written (port 0);
	// the API server speaks gRPC only.
	cfg.EnableGRPCGateway = false

	// The API server compacts etcd itself (--etcd-compaction-interval), as
	// in a real cluster; etcd's own auto-compaction stays off.
	cfg.AutoCompactionRetention = "0"

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, "", err
	case <-time.After(hf.etcdStartWait):
		e.Close()
		return nil, "", fmt.Errorf("not ready after %s", hf.etcdStartWait)
	}
	if len(e.Clients) == 0 {
		e.Close()
		return nil, "", errors.New("no client listener")
	}
	return e, "http://" + e.Clients[0].Addr().String(), nil
}
