package main

import (
	"os"
	"testing"
)

// FuzzDecodeReport: no report, however broken, makes merge's decoder
// panic; one it accepts merges with itself into a known verdict.
func FuzzDecodeReport(f *testing.F) {
	for _, name := range []string{"testdata/merge/shard0.json", "testdata/merge/shard1.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"verdict": "pass", "cases": [{"verdict": "pass", "checks": []}]}`))
	f.Add([]byte(`{"verdict": "banana"}`))
	f.Add([]byte(`{"verdict": "fail", "plans": -1, "cases": [{"verdict": "fail", "checks": ["IDEM-001"], "minimal_plan": {"steps": []}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := decodeReport(b)
		if err != nil {
			return
		}
		merged := merge([]stressReport{rep, rep})
		if knownVerdict(merged.Verdict) != nil || merged.Verdict != rep.Verdict {
			t.Fatalf("merged verdict %q of a report whose verdict is %q", merged.Verdict, rep.Verdict)
		}
	})
}
