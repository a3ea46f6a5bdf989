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
