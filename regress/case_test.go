package regress_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

func failure() *stress.Failure {
	call := func(v int) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: v}}}
	}
	return &stress.Failure{
		Plan: model.Plan{Steps: []model.Step{call(0), call(1)}},
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: a payload not equivalent was answered ok",
			Detail: "action A/k1: v1 answered ok 200 id 7", Action: model.Action{Tenant: "A", Key: "k1"}}},
	}
}

func contract(t *testing.T) stress.Config {
	t.Helper()
	cfg, err := sample.Contract(ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A case written is the case read back, in a file named after its check
// and plan, with every documented field in the JSON.
func TestWriteRead(t *testing.T) {
	c := regress.FromFailure(contract(t), 42, failure())
	dir := t.TempDir()
	path, err := regress.Write(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(path), "IDEM-004-") || c.Name+".json" != filepath.Base(path) {
		t.Errorf("file %s for case %s", path, c.Name)
	}
	got, err := regress.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Path = path
	if !reflect.DeepEqual(got, c) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, c)
	}
	raw, _ := os.ReadFile(path)
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"version", "name", "check", "plan", "plan_text", "contract_digest", "hunt", "last_seen"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("case file lacks %q:\n%s", f, raw)
		}
	}
	seen := fields["last_seen"].(map[string]any)
	for _, f := range []string{"seed", "observed", "violations", "idemstress_version", "go_version"} {
		if _, ok := seen[f]; !ok {
			t.Errorf("case file's last_seen lacks %q:\n%s", f, raw)
		}
	}
	check := fields["check"].(map[string]any)
	if check["expected"] == "" || seen["observed"] != "action A/k1: v1 answered ok 200 id 7" || fields["plan_text"] != "A/k1 v0; A/k1 v1" {
		t.Errorf("check %v, last seen %v, plan %v", check, seen, fields["plan_text"])
	}
	// The same failure found again is the same file.
	if again := regress.FromFailure(contract(t), 7, failure()); again.Name != c.Name {
		t.Errorf("same plan and check, names %s and %s", again.Name, c.Name)
	}
	cases, err := regress.Load(dir)
	if err != nil || len(cases) != 1 || cases[0].Name != c.Name {
		t.Errorf("Load(dir) = %v, %v", cases, err)
	}
}

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"newer.json":     `{"version": 99, "name": "x", "check": {"id": "IDEM-001"}, "plan": {"steps": [{"kind": "call"}]}}`,
		"noversion.json": `{"name": "x"}`,
		"noplan.json":    `{"version": 1, "check": {"id": "IDEM-001"}, "plan": {"steps": []}}`,
		"garbage.json":   `not json`,
		"nocall.json":    `{"version": 1, "check": {"id": "IDEM-001"}, "plan": {"steps": [{"kind": "call", "calls": [{"tenant": "A", "key": "k1"}]}, {"kind": "call", "calls": []}]}}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := regress.Read(path); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	if _, err := regress.Load(t.TempDir()); err == nil {
		t.Error("an empty directory loaded as no cases")
	}
	if _, err := regress.Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file loaded")
	}
}

// The digest changes with what the contract promises, not with where the
// service runs or how hard a run hunts.
func TestContractDigest(t *testing.T) {
	base := contract(t)
	d := base.Digest()
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
		t.Fatalf("digest %q", d)
	}
	moved := contract(t)
	moved.HTTP.URL = "http://10.0.0.9:9999/tickets"
	moved.DBStall, moved.Plans, moved.DatabaseURL = "tickets", 5, "postgres://x/y"
	// How hard a run looks (the world's bounds and noise) is no promise.
	moved.World = gen.DefaultWorld()
	moved.World.MaxKeys, moved.World.KeyRequired, moved.World.Noise = 1, false, nil
	if moved.Digest() != d {
		t.Error("the digest depends on the host, the database or the run's settings")
	}
	for name, change := range map[string]func(*stress.Config){
		"conflict status": func(c *stress.Config) { c.Contract.Statuses.Conflict = []int{409} },
		"key scope":       func(c *stress.Config) { c.Contract.KeyScope = model.KeyScopeGlobal },
		"path":            func(c *stress.Config) { c.HTTP.URL = "http://127.0.0.1:8080/v2/tickets" },
		"per_action":      func(c *stress.Config) { c.Effects[1].PerAction = 2 },
		"key_required":    func(c *stress.Config) { c.Contract.KeylessCreates = !c.Contract.KeylessCreates },
		"identity noise":  func(c *stress.Config) { c.IdentityNoise = []model.Noise{model.NoiseTrace} },
	} {
		c := contract(t)
		change(&c)
		if c.Digest() == d {
			t.Errorf("changing the %s leaves the digest alone", name)
		}
	}
	// The digest of a contract without sinks is what it was before sinks
	// existed, so that no case file written then reads as found under
	// another contract.
	if d != "sha256:2d083b06b3d09947efc06cb292e1239e9eb5feb349683cb890f99b7ac180a24e" {
		t.Errorf("the digest of a contract without sinks changed: %s", d)
	}
	hooks := effect.Sink{Name: "webhooks", Key: "/key", Tenant: "/tenant", Delivery: effect.AtLeastOnce, EventID: "/id"}
	withSink := contract(t)
	withSink.Sinks = []effect.Sink{hooks}
	ds := withSink.Digest()
	if ds == d {
		t.Error("declaring a sink leaves the digest alone")
	}
	for name, change := range map[string]func(*effect.Sink){
		"address, faults, slow answer and quiet": func(s *effect.Sink) {
			s.Addr, s.Faults, s.Slow, s.Quiet = "127.0.0.1:9090", []model.SinkFault{model.Sink500}, time.Second, time.Second
		},
		"defaults spelt out": func(s *effect.Sink) { s.PerAction, s.DeliveryWithin = 1, effect.DefaultDeliveryWithin },
	} {
		c := contract(t)
		s := hooks
		change(&s)
		c.Sinks = []effect.Sink{s}
		if c.Digest() != ds {
			t.Errorf("changing a sink's %s changes the digest", name)
		}
	}
	for name, change := range map[string]func(*effect.Sink){
		"delivery":        func(s *effect.Sink) { s.Delivery, s.EventID = effect.ExactlyOnce, "" },
		"event_id":        func(s *effect.Sink) { s.EventID = "/event" },
		"per_action":      func(s *effect.Sink) { s.PerAction = 2 },
		"delivery_within": func(s *effect.Sink) { s.DeliveryWithin = time.Second },
		"key pointer":     func(s *effect.Sink) { s.Key = "/data/key" },
	} {
		c := contract(t)
		s := hooks
		change(&s)
		c.Sinks = []effect.Sink{s}
		if c.Digest() == ds {
			t.Errorf("changing a sink's %s leaves the digest alone", name)
		}
	}
}

// The snippet is Go that parses, names the case file and the contract.
func TestSnippet(t *testing.T) {
	c := regress.FromFailure(contract(t), 42, failure())
	s := regress.Snippet(c, "testdata/contract.yaml", "testdata/cases/"+c.Name+".json")
	src := "package x\n\nimport (\n\t\"testing\"\n\n\t\"github.com/idemstress/idemstress/regress\"\n\t\"github.com/idemstress/idemstress/stress\"\n)\n\n" + s
	if _, err := parser.ParseFile(token.NewFileSet(), "snippet.go", src, parser.AllErrors); err != nil {
		t.Fatalf("snippet does not parse: %v\n%s", err, s)
	}
	for _, want := range []string{"func TestRegression_IDEM_004_", `stress.Load("testdata/contract.yaml")`, `regress.Replay(t, cfg, "testdata/cases/` + c.Name + `.json")`} {
		if !strings.Contains(s, want) {
			t.Errorf("snippet lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "absolute") {
		t.Errorf("a snippet with relative paths calls them absolute:\n%s", s)
	}
	abs := regress.Snippet(c, "/home/me/svc/contract.yaml", "/home/me/svc/idemstress-cases/"+c.Name+".json")
	if !strings.Contains(abs, "// The paths are absolute, for this machine: to commit this test, copy both\n// files into testdata/") {
		t.Errorf("a snippet with absolute paths does not say to copy the files:\n%s", abs)
	}
}

// A case file holds no password: not the contract's database URL, nor one a
// violation quotes (from an answer body or a service's error).
func TestCaseFileMasksPasswords(t *testing.T) {
	cfg := contract(t)
	cfg.DatabaseURL = "postgres://app:s3cret@db/x"
	f := failure()
	f.Violations[0].Message += " (postgres://app:s3cret@db/x)"
	f.Violations[0].Detail += ": password=s3cret"
	path, err := regress.Write(t.TempDir(), regress.FromFailure(cfg, 1, f))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "s3cret") {
		t.Errorf("the password is in the case file:\n%s", raw)
	}
	if strings.Count(string(raw), "xxxxx") < 4 {
		t.Errorf("the quoted URLs are not in the case file, so this test shows nothing:\n%s", raw)
	}
}

// A hand-edited plan is what replay shows, not the stale plan_text beside it.
func TestReadShowsThePlanThatRuns(t *testing.T) {
	path, err := regress.Write(t.TempDir(), regress.FromFailure(contract(t), 1, failure()))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	edited := strings.Replace(string(raw), `"variant": 1`, `"variant": 2`, 1)
	if edited == string(raw) {
		t.Fatalf("no variant 1 in the case file:\n%s", raw)
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := regress.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.PlanText != "A/k1 v0; A/k1 v2" {
		t.Errorf("plan text %q of an edited plan %s", c.PlanText, c.Plan.Compact())
	}
}

// A case found again replaces its file whole: a reader that opened it
// before (another shard on the same volume) reads the old case complete,
// never a truncated or mixed file.
func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path, err := regress.Write(dir, regress.FromFailure(contract(t), 1, failure()))
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := regress.Write(dir, regress.FromFailure(contract(t), 2, failure())); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != string(old) {
		t.Errorf("a reader of the old file read\n%s\nwant\n%s", b, old)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left beside the case: %v", entries)
	}
}

// The same bug found again with the same plan, on another run (another
// seed, other ids in what it observed), changes nothing in its case file
// but last_seen: a committed case does not churn.
func TestRediscoveryChangesOnlyLastSeen(t *testing.T) {
	again := failure()
	again.Violations[0].Detail = "action A/k1: v1 answered ok 200 id 2387"
	again.Violations = append(again.Violations, checks.Violation{Check: checks.FieldsDiffer, Message: "IDEM-007 x", Detail: "id 2388"})
	var files []map[string]any
	for i, f := range []*stress.Failure{failure(), again} {
		path, err := regress.Write(t.TempDir(), regress.FromFailure(contract(t), uint64(i+1), f))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(path)
		var fields map[string]any
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		files = append(files, fields)
	}
	if reflect.DeepEqual(files[0]["last_seen"], files[1]["last_seen"]) {
		t.Fatal("two runs' sightings are alike, so this test shows nothing")
	}
	delete(files[0], "last_seen")
	delete(files[1], "last_seen")
	if !reflect.DeepEqual(files[0], files[1]) {
		t.Errorf("found again, the case changes outside last_seen:\n%v\n%v", files[0], files[1])
	}
}

// A version 1 file (seed, violations, versions and check.observed beside
// the rest) still reads, its run's detail in LastSeen.
func TestReadVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "IDEM-004-0f2b1c3d.json")
	v1 := `{"version": 1, "name": "IDEM-004-0f2b1c3d",
  "check": {"id": "IDEM-004", "name": "changed payload accepted", "message": "IDEM-004 changed payload accepted: m",
    "expected": "never", "observed": "action A/k1: v1 answered ok 200 id 7", "action": {"tenant": "A", "key": "k1"}},
  "violations": [{"check": "IDEM-004", "message": "IDEM-004 changed payload accepted: m", "detail": "d", "action": {"tenant": "A", "key": "k1"}}],
  "plan": {"steps": [{"kind": "call", "calls": [{"tenant": "A", "key": "k1"}]}, {"kind": "call", "calls": [{"tenant": "A", "key": "k1", "variant": 1}]}]},
  "plan_text": "A/k1 v0; A/k1 v1", "contract_digest": "sha256:00", "seed": 42, "idemstress_version": "v0.1.0", "go_version": "go1.26.0"}`
	if err := os.WriteFile(path, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := regress.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := regress.Sighting{Seed: 42, Observed: "action A/k1: v1 answered ok 200 id 7", Idemstress: "v0.1.0", Go: "go1.26.0",
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: m", Detail: "d", Action: model.Action{Tenant: "A", Key: "k1"}}}}
	if !reflect.DeepEqual(c.LastSeen, want) || c.Check.ID != checks.ChangedAccepted || c.PlanText != "A/k1 v0; A/k1 v1" {
		t.Errorf("version 1 file read as %+v", c)
	}
}

// A case whose shrinking ran out of budget says so in its file, and reads
// back so.
func TestCaseNotMinimal(t *testing.T) {
	f := failure()
	if c := regress.FromFailure(contract(t), 1, f); c.NotMinimal {
		t.Errorf("a minimal failure's case is marked not minimal")
	}
	f.NotMinimal = true
	path, err := regress.Write(t.TempDir(), regress.FromFailure(contract(t), 1, f))
	if err != nil {
		t.Fatal(err)
	}
	c, err := regress.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !c.NotMinimal {
		t.Errorf("case file %s does not say its plan is not minimal", path)
	}
}
