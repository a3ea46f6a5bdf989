package sample

import "testing"

// A list of modes gets two replicas when any member needs them, spelt as
// ticketsvc's -bug accepts it.
func TestReplicas(t *testing.T) {
	for mode, want := range map[string]int{
		"": 1, "global-keys": 1, "process-mutex": 2, "global-keys,process-mutex": 2,
		"global-keys, process-mutex": 2, "process-mutex-ish": 1,
	} {
		if got := Replicas(mode); got != want {
			t.Errorf("Replicas(%q) = %d, want %d", mode, got, want)
		}
	}
}

// A list of modes passes only when none of them is a bug.
func TestPasses(t *testing.T) {
	for mode, want := range map[string]bool{
		Correct: true, "key-first": true, "global-keys": false, "no-payload-check,global-keys": false, "stuck-in-flight": false,
	} {
		if got := Passes(mode); got != want {
			t.Errorf("Passes(%q) = %v, want %v", mode, got, want)
		}
	}
}
