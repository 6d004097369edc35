// Command validator is the Kubernetes API server's own create-time validation for workloads,
// compiled to WebAssembly (GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared) for kube-windows'
// `check --exact-api`. It runs as a reactor: the host calls _initialize once, then, per document,
// writes the document's text (YAML or JSON) into a buffer from kw_alloc and calls kw_validate,
// which answers with JSON read through kw_result_ptr and kw_result_len.
//
// Each document goes the way a create request goes through kube-apiserver: decoded strictly
// (unknown and duplicate fields are refused, as kubectl's default --validate=strict asks),
// defaulted and converted to the internal type by the legacy scheme, given its system metadata,
// then the resource's own registry strategy (rest.BeforeCreate: PrepareForCreate, Validate,
// object-meta validation, warnings). The answer is the metav1.Status the API server would send.
//
// Built by scripts/validator.mjs from the published k8s.io/kubernetes module: go.mod here pins the
// default release, each 1.N/go.mod another one.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/component-base/version"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/capabilities"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
)

// kubernetesVersion is stamped by the build (-X main.kubernetesVersion=v1.N.P).
var kubernetesVersion = "unknown"

type resource struct {
	name     string
	strategy rest.RESTCreateStrategy
}

// The kinds whose pod template the API server validates, by group and kind; the versions come
// from the scheme (apps/v1, batch/v1, v1 and whatever older versions it still decodes).
var resources = map[schema.GroupKind]resource{
	{Group: "", Kind: "Pod"}:                   {"pods", pod.Strategy},
	{Group: "", Kind: "PodTemplate"}:           {"podtemplates", podtemplate.Strategy},
	{Group: "", Kind: "ReplicationController"}: {"replicationcontrollers", replicationcontroller.Strategy},
	{Group: "apps", Kind: "Deployment"}:        {"deployments", deployment.Strategy},
	{Group: "apps", Kind: "StatefulSet"}:       {"statefulsets", statefulset.Strategy},
	{Group: "apps", Kind: "DaemonSet"}:         {"daemonsets", daemonset.Strategy},
	{Group: "apps", Kind: "ReplicaSet"}:        {"replicasets", replicaset.Strategy},
	{Group: "batch", Kind: "Job"}:              {"jobs", job.Strategy},
	{Group: "batch", Kind: "CronJob"}:          {"cronjobs", cronjob.Strategy},
}

// Strict, as kube-apiserver decodes with fieldValidation=Strict; the object still comes back
// with a strict-decoding error, so the error is reported the way the server reports it.
var codecs = serializer.NewCodecFactory(legacyscheme.Scheme, serializer.EnableStrict)

type answer struct {
	// "valid", "invalid" (the API server refuses it: strict and/or status say how) or "unsupported"
	// (not a kind validated here, or not served by this release; reason says why).
	Verdict    string `json:"verdict"`
	Kubernetes string `json:"kubernetes"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// The 400 a create with fieldValidation=Strict (kubectl's default) gets for unknown or duplicate
	// fields, before any validation.
	Strict *metav1.Status `json:"strict,omitempty"`
	// The answer to a create with those fields ignored: the 422 of validation, or nothing.
	Status   *metav1.Status `json:"status,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func validate(text []byte, namespace string) answer {
	out := answer{Kubernetes: kubernetesVersion}
	// The kind first, from a lenient read, so an unknown kind is "unsupported", not an error.
	_, gvk, err := codecs.UniversalDeserializer().Decode(text, nil, &runtime.Unknown{})
	if err != nil || gvk == nil {
		out.Verdict, out.Reason = "unsupported", "no apiVersion and kind could be read"
		return out
	}
	out.APIVersion, out.Kind = gvk.GroupVersion().String(), gvk.Kind
	res, known := resources[gvk.GroupKind()]
	if !known {
		out.Verdict, out.Reason = "unsupported", fmt.Sprintf("%s %s is not validated here", out.APIVersion, gvk.Kind)
		return out
	}
	if !legacyscheme.Scheme.Recognizes(*gvk) {
		out.Verdict, out.Reason = "unsupported", fmt.Sprintf("%s %s is not served by Kubernetes %s", out.APIVersion, gvk.Kind, kubernetesVersion)
		return out
	}

	obj, _, err := codecs.UniversalDecoder().Decode(text, nil, nil)
	if err != nil {
		// kube-apiserver's words for a body it cannot decode (handlers/rest.go, transformDecodeError).
		status := statusOf(apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err)))
		out.Verdict = "invalid"
		if obj == nil || !runtime.IsStrictDecodingError(err) {
			out.Status = status
			return out
		}
		// Unknown or duplicate fields only: the object was decoded without them, and validation
		// still says what a create that ignores them would get.
		out.Strict = status
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		out.Verdict, out.Reason = "unsupported", err.Error()
		return out
	}
	out.Name = accessor.GetName()
	if namespace == "" {
		namespace = accessor.GetNamespace()
	}
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	if accessor.GetNamespace() == "" {
		accessor.SetNamespace(namespace)
	}

	rec := &warnings{}
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIPrefix: apiPrefix(gvk.Group), APIGroup: gvk.Group,
		APIVersion: gvk.Version, Namespace: namespace, Resource: res.name, Name: accessor.GetName(),
	})
	ctx = warning.WithWarningRecorder(ctx, rec)
	// What the create handler and the registry store do before the strategy runs.
	rest.FillObjectMetaSystemFields(accessor)
	if accessor.GetGenerateName() != "" && accessor.GetName() == "" {
		accessor.SetName(res.strategy.GenerateName(accessor.GetGenerateName()))
	}
	if err := rest.BeforeCreate(res.strategy, ctx, obj); err != nil {
		out.Verdict = "invalid"
		out.Status = statusOf(err)
	} else if out.Strict == nil {
		out.Verdict = "valid"
	}
	out.Warnings = rec.list
	return out
}

func apiPrefix(group string) string {
	if group == "" {
		return "api"
	}
	return "apis"
}

func statusOf(err error) *metav1.Status {
	if s, ok := err.(apierrors.APIStatus); ok {
		status := s.Status()
		status.Kind, status.APIVersion = "Status", "v1"
		return &status
	}
	status := apierrors.NewInternalError(err).Status()
	return &status
}

// request is what the host sends: the document's text and, optionally, the namespace to create it in.
type request struct {
	Text      string `json:"text"`
	Namespace string `json:"namespace,omitempty"`
}

var (
	input  []byte
	result []byte
)

//go:wasmexport kw_alloc
func kwAlloc(size int32) unsafe.Pointer {
	input = make([]byte, size)
	if size == 0 {
		return nil
	}
	return unsafe.Pointer(&input[0])
}

//go:wasmexport kw_validate
func kwValidate(size int32) int32 {
	var req request
	var out any
	if err := json.Unmarshal(input[:size], &req); err != nil {
		out = answer{Verdict: "unsupported", Kubernetes: kubernetesVersion, Reason: "bad request to the validator: " + err.Error()}
	} else {
		out = safeValidate(req)
	}
	result, _ = json.Marshal(out)
	input = nil
	return int32(len(result))
}

// safeValidate turns a panic in validation code into an answer, so one odd document never takes
// the long-lived instance down.
func safeValidate(req request) (out answer) {
	defer func() {
		if r := recover(); r != nil {
			out = answer{Verdict: "unsupported", Kubernetes: kubernetesVersion, Reason: fmt.Sprintf("the validator failed on this document: %v", r)}
		}
	}()
	return validate([]byte(req.Text), req.Namespace)
}

//go:wasmexport kw_result_ptr
func kwResultPtr() unsafe.Pointer {
	if len(result) == 0 {
		return nil
	}
	return unsafe.Pointer(&result[0])
}

//go:wasmexport kw_version
func kwVersion() int32 {
	result = []byte(kubernetesVersion + " " + strings.TrimSpace(version.Get().GoVersion))
	return int32(len(result))
}

func init() {
	// As kube-apiserver --allow-privileged=true sets it up (kubeadm's default; HostProcess pods, the
	// way Windows nodes run their agents, need it): without it every privileged pod is refused.
	capabilities.Setup(true, 0)
}

func main() {}
