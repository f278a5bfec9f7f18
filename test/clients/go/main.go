// Command clientgo drives an unmodified client-go (typed clientset over protobuf, and a shared
// informer) against a kapi server, and prints one JSON object of what it saw on stdout.
//
// Usage: clientgo -kubeconfig PATH -namespace NS
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const protobuf = "application/vnd.kubernetes.protobuf"

// wire counts request and response content types per method, to prove protobuf went over the wire.
type wire struct {
	mu   sync.Mutex
	seen map[string]int
}

type recorder struct {
	next http.RoundTripper
	w    *wire
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	key := req.Method + " req=" + req.Header.Get("Content-Type")
	if resp != nil {
		key += " resp=" + resp.Header.Get("Content-Type")
	}
	r.w.mu.Lock()
	r.w.seen[key]++
	r.w.mu.Unlock()
	return resp, err
}

type apiErr struct {
	Code   int32  `json:"code"`
	Reason string `json:"reason"`
	Is     bool   `json:"is"`
}

func statusOf(err error, is func(error) bool) *apiErr {
	if err == nil {
		return nil
	}
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		return &apiErr{Reason: err.Error()}
	}
	s := st.Status()
	return &apiErr{Code: s.Code, Reason: string(s.Reason), Is: is(err)}
}

func fail(step string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", step, err)
	os.Exit(1)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	ns := flag.String("namespace", "clientgo", "namespace to create and use")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig", err)
	}
	cfg.ContentType = protobuf
	cfg.AcceptContentTypes = protobuf + ",application/json"
	rec := &wire{seen: map[string]int{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recorder{next: rt, w: rec} })

	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail("clientset", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out := map[string]any{}

	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		fail("version", err)
	}
	out["version"] = map[string]string{"major": v.Major, "minor": v.Minor, "gitVersion": v.GitVersion}

	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: *ns}}, metav1.CreateOptions{}); err != nil {
		fail("create namespace", err)
	}

	// A shared informer on the namespace's ConfigMaps, started before any write.
	var mu sync.Mutex
	var events []string
	done := make(chan struct{})
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
		if e == "DELETED cg" {
			close(done)
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(*ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			record(fmt.Sprintf("ADDED %s v=%s", cm.Name, cm.Data["v"]))
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, n := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
			record(fmt.Sprintf("MODIFIED %s v=%s->%s", n.Name, o.Data["v"], n.Data["v"]))
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			record("DELETED " + obj.(*corev1.ConfigMap).Name)
		},
	}); err != nil {
		fail("add handler", err)
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			fail("cache sync", fmt.Errorf("%v did not sync", typ))
		}
	}
	out["synced"] = true

	cms := cs.CoreV1().ConfigMaps(*ns)
	created, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cg", Labels: map[string]string{"app": "clientgo"}},
		Data:       map[string]string{"v": "1"},
	}, metav1.CreateOptions{})
	if err != nil {
		fail("create", err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{}); err != nil {
		fail("create other", err)
	}
	got, err := cms.Get(ctx, "cg", metav1.GetOptions{})
	if err != nil {
		fail("get", err)
	}
	out["created"] = map[string]any{
		"uid":             string(created.UID),
		"resourceVersion": created.ResourceVersion,
		"getUID":          string(got.UID),
		"getData":         got.Data,
		"creationSet":     !got.CreationTimestamp.IsZero(),
	}

	all, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("list", err)
	}
	sel, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=clientgo"})
	if err != nil {
		fail("list selector", err)
	}
	names := func(l *corev1.ConfigMapList) []string {
		n := []string{}
		for _, i := range l.Items {
			n = append(n, i.Name)
		}
		sort.Strings(n)
		return n
	}
	out["list"] = map[string]any{"all": names(all), "selected": names(sel), "resourceVersion": all.ResourceVersion}

	got.Data["v"] = "2"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		fail("update", err)
	}
	stale := created.DeepCopy()
	stale.Data = map[string]string{"v": "lost"}
	_, staleErr := cms.Update(ctx, stale, metav1.UpdateOptions{})

	patched, err := cms.Patch(ctx, "cg", types.StrategicMergePatchType, []byte(`{"data":{"v":"3"}}`), metav1.PatchOptions{})
	if err != nil {
		fail("patch", err)
	}
	out["writes"] = map[string]any{
		"updatedData":   updated.Data,
		"updatedRVDiff": updated.ResourceVersion != created.ResourceVersion,
		"patchedData":   patched.Data,
		"patchedUID":    string(patched.UID),
	}

	_, notFound := cms.Get(ctx, "missing", metav1.GetOptions{})
	_, exists := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cg"}}, metav1.CreateOptions{})
	_, invalid := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}}, metav1.CreateOptions{})
	out["errors"] = map[string]any{
		"conflict":      statusOf(staleErr, apierrors.IsConflict),
		"notFound":      statusOf(notFound, apierrors.IsNotFound),
		"alreadyExists": statusOf(exists, apierrors.IsAlreadyExists),
		"invalid":       statusOf(invalid, apierrors.IsInvalid),
	}

	if err := cms.Delete(ctx, "cg", metav1.DeleteOptions{}); err != nil {
		fail("delete", err)
	}
	_, afterDelete := cms.Get(ctx, "cg", metav1.GetOptions{})
	out["afterDelete"] = statusOf(afterDelete, apierrors.IsNotFound)

	select {
	case <-done:
	case <-time.After(30 * time.Second):
	}
	mu.Lock()
	out["informerEvents"] = append([]string(nil), events...)
	mu.Unlock()
	out["informerStore"] = inf.GetStore().ListKeys()

	cancel()
	rec.mu.Lock()
	out["wire"] = rec.seen
	rec.mu.Unlock()
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail("encode", err)
	}
}
