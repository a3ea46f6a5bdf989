package fault

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// A crash or pause that did not fire says why: the service refused the
// call before it wrote, or the call never waited on its write.
func TestUnfiredCrashSaysWhy(t *testing.T) {
	tests := []struct {
		op   model.Op
		done string
		want string
	}{
		{model.Op{Out: model.Outcome{Kind: model.Invalid, Status: 400}}, "killed", "the service answered 400 before it wrote to tickets (a call it refuses writes nothing), so the replica was not killed"},
		{model.Op{Out: model.Outcome{Kind: model.Unknown}}, "paused", "never waited on its write to tickets, so the replica was not paused"},
	}
	for _, tt := range tests {
		if got := unfired(tt.op, "tickets", tt.done); !strings.Contains(got, tt.want) {
			t.Errorf("unfired(%d, %s) = %q, want it to say %q", tt.op.Out.Status, tt.done, got, tt.want)
		}
	}
}

// A slow original that was never held says why, and that no retry was
// sent.
func TestUnfiredOverrunSaysWhy(t *testing.T) {
	for status, want := range map[int]string{
		422: "the service answered 422 before it wrote to tickets (a call it refuses writes nothing), so the original was not held past the lease and no retry was sent",
		200: "the original never waited on its write to tickets, so it was not held past the lease and no retry was sent",
	} {
		if got := unfiredOverrun(model.Op{Out: model.Outcome{Status: status}}, "tickets"); got != want {
			t.Errorf("unfiredOverrun(%d) = %q, want %q", status, got, want)
		}
	}
}
