package httpproxy_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/fault/httpproxy"
)

var huge = strings.Repeat("a", 8<<20)

// A target answering an 8 MiB header through the proxy: the proxy holds at
// most the bound of it and says the target did not answer, so a lost reply
// planned on that call did not fire (no answer was read to lose).
func TestProxyBoundsHeaders(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_ = readAll(r.Body)
		w.Header()["X-Huge"] = []string{huge}
		w.WriteHeader(http.StatusCreated)
	})
	p, err := httpproxy.Start(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.Addr()+"/tickets", strings.NewReader("payload"))
	req.GetBody = nil
	req.Header.Set(httpproxy.Header, httpproxy.LoseReply+" t1")
	cl := &http.Client{Timeout: 10 * time.Second}
	if resp, err := cl.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("the client got an answer (%s); want none (lose-reply)", resp.Status)
	}
	var rep httpproxy.Report
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if r, ok := p.Report("t1"); ok {
			rep = r
			break
		}
	}
	runtime.ReadMemStats(&after)
	if rep.Fired || !strings.Contains(rep.Note, "did not answer") {
		t.Errorf("report %+v; want not fired: the target did not answer", rep)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("proxying an 8 MiB header allocated %d MiB", got>>20)
	}
}
