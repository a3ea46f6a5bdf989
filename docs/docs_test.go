// Package docs holds the pages the README links to and the examples for
// running idemstress unattended; its tests keep the examples parseable and
// in step with the command line, and every link of the pages resolving.
// The pages' code and tables are pinned by the tests of the packages they
// describe (checks, stress, regress).
package docs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/idemstress/idemstress/stress"
)

// documents parses every YAML document of a file.
func documents(t *testing.T, name string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var docs []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		t.Fatalf("%s: no YAML document", name)
	}
	return docs
}

// at walks a parsed document: keys of maps, indexes of lists.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not a map", path, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at %v: %v is not a list of %d", path, v, k+1)
			}
			v = l[k]
		}
	}
	return v
}

var shard = regexp.MustCompile(`idemstress stress [^\n]*--shard (.+?)/(\d+)`)

// Every example parses as YAML.
func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("*.y*ml")
	if len(files) < 3 {
		t.Fatalf("examples %v; want the workflow and the two Kubernetes manifests", files)
	}
	for _, f := range files {
		documents(t, f)
	}
}

// The workflow runs nightly, one shard per matrix entry, i/N with N the
// matrix's size, then merges.
func TestGitHubWorkflow(t *testing.T) {
	d := documents(t, "nightly-github-actions.yml")[0]
	if cron, _ := at(t, d, "on", "schedule", 0, "cron").(string); len(strings.Fields(cron)) != 5 {
		t.Errorf("schedule cron %q", cron)
	}
	shards, _ := at(t, d, "jobs", "stress", "strategy", "matrix", "shard").([]any)
	runs := ""
	for _, s := range at(t, d, "jobs", "stress", "steps").([]any) {
		if r, ok := s.(map[string]any)["run"].(string); ok {
			runs += strings.ReplaceAll(r, "\\\n", "") + "\n"
		}
	}
	m := shard.FindStringSubmatch(runs)
	if m == nil || m[1] != "${{ matrix.shard }}" || m[2] != fmt.Sprint(len(shards)) || !strings.Contains(runs, "--duration") {
		t.Errorf("stress step %q with %d shards", runs, len(shards))
	}
	for i, s := range shards {
		if s != i {
			t.Errorf("shard %d is %v", i, s)
		}
	}
	// A step's default shell runs without pipefail: a pipe into tee would
	// hide a failed command. "shell: bash" runs with -o pipefail.
	for _, job := range at(t, d, "jobs").(map[string]any) {
		for _, s := range at(t, job, "steps").([]any) {
			step := s.(map[string]any)
			if r, _ := step["run"].(string); strings.Contains(r, "|") && step["shell"] != "bash" && !strings.Contains(r, "pipefail") {
				t.Errorf("step %q pipes without pipefail: its failure is lost", step["name"])
			}
		}
	}
	if at(t, d, "jobs", "merge", "needs") != "stress" || !strings.Contains(fmt.Sprint(at(t, d, "jobs", "merge", "steps")), "idemstress merge") {
		t.Error("no merge job after the shards")
	}
}

// The Indexed Job runs shard $(JOB_COMPLETION_INDEX)/N for N completions,
// under a contract that idemstress accepts; the merge Job merges.
func TestKubernetesJobs(t *testing.T) {
	var job, contract map[string]any
	for _, d := range documents(t, "kubernetes-indexed-job.yaml") {
		if d["apiVersion"] == nil || d["kind"] == nil {
			t.Errorf("a document without apiVersion or kind: %v", d)
		}
		switch d["kind"] {
		case "Job":
			job = d
		case "ConfigMap":
			contract = d
		}
	}
	if job == nil || contract == nil {
		t.Fatal("no Job or no ConfigMap")
	}
	if at(t, job, "spec", "completionMode") != "Indexed" {
		t.Error("not an Indexed Job")
	}
	n := at(t, job, "spec", "completions")
	args := fmt.Sprint(at(t, job, "spec", "template", "spec", "containers", 0, "args"))
	m := shard.FindStringSubmatch(args)
	if m == nil || m[1] != "$(JOB_COMPLETION_INDEX)" || m[2] != fmt.Sprint(n) || !strings.Contains(args, "--duration") {
		t.Errorf("args %q for %v completions", args, n)
	}
	text, _ := at(t, contract, "data", "contract.yaml").(string)
	cfg, err := stress.Parse("contract.yaml", []byte(text))
	if err != nil {
		t.Errorf("the example contract: %v", err)
	} else if cfg.DBStall != "" || len(cfg.Effects) != 2 {
		// No db_stall: one shard's table lock would hold the others' calls.
		t.Errorf("the example contract read as %+v", cfg)
	}
	merge := documents(t, "kubernetes-merge-job.yaml")[0]
	if merge["kind"] != "Job" || !strings.Contains(fmt.Sprint(at(t, merge, "spec", "template", "spec", "containers", 0, "args")), "idemstress merge /out/report-") {
		t.Errorf("merge job %v", merge)
	}
}
