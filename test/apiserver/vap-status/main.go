// Command vap-status runs the upstream ValidatingAdmissionPolicy status controller (the one
// kube-controller-manager runs, with the same type checker) against a test API server, so that
// status.typeChecking of every policy is written as in a real cluster: the test API server runs no
// controller manager. It stops when its standard input closes.
//
// Usage: vap-status --kubeconfig FILE
//
// Never shipped: built on demand by scripts/vap-status.mjs for the admission parity suite.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8sscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/kubernetes/pkg/controller/validatingadmissionpolicystatus"
	"k8s.io/kubernetes/pkg/generated/openapi"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server (required)")
	flag.Parse()
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "vap-status: --kubeconfig is required")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vap-status: %v\n", err)
		os.Exit(1)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	discovery := memory.NewMemCacheClient(client.Discovery())
	schemaResolver := resolver.NewDefinitionsSchemaResolver(openapi.GetOpenAPIDefinitions, k8sscheme.Scheme, apiextensionsscheme.Scheme).
		Combine(&resolver.ClientDiscoveryResolver{Discovery: client.Discovery()})
	typeChecker := &validating.TypeChecker{
		SchemaResolver: schemaResolver,
		RestMapper:     restmapper.NewDeferredDiscoveryRESTMapper(discovery),
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	controller, err := validatingadmissionpolicystatus.NewController(
		factory.Admissionregistration().V1().ValidatingAdmissionPolicies(),
		client.AdmissionregistrationV1().ValidatingAdmissionPolicies(),
		typeChecker,
	)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vap-status: %v\n", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	fmt.Println("vap-status: running")
	controller.Run(ctx, 1)
}
