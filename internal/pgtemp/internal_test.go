package pgtemp

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/logtail"
	"github.com/idemstress/idemstress/internal/procgroup"
)

// TestLogTail checks the cluster's log as Start uses it: forwarded to
// Options.Log, and its last lines quoted in an error.
func TestLogTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "empty", want: "\t(no output)"},
		{name: "lines split across writes", writes: []string{"a\nb", "c\n", "d"}, want: "\ta\n\tbc\n\td"},
		{name: "keeps the last lines", writes: []string{strings.Repeat("x\n", tailLines) + "y\nz\n"},
			want: "\t" + strings.Repeat("x\n\t", tailLines-2) + "y\n\tz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var forwarded strings.Builder
			tail := logtail.New(tailLines, &forwarded)
			for _, w := range tc.writes {
				if n, err := tail.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := quoteLog(tail.Since(0)); got != tc.want {
				t.Errorf("quoteLog(Since(0)) = %q, want %q", got, tc.want)
			}
			all := strings.Join(tc.writes, "")
			if got, want := forwarded.String(), all[:strings.LastIndex(all, "\n")+1]; got != want {
				t.Errorf("forwarded %q, want %q", got, want)
			}
		})
	}
}

func TestNewerVersionDirFirst(t *testing.T) {
	dirs := []string{"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/10/bin", "/usr/lib/postgresql/16/bin"}
	want := []string{"/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/10/bin", "/usr/lib/postgresql/9.6/bin"}
	for i := range dirs {
		for j := range dirs {
			if got, wantLess := newerVersionDir(want[i], want[j]), i < j; got != wantLess {
				t.Errorf("newerVersionDir(%s, %s) = %v, want %v", want[i], want[j], got, wantLess)
			}
		}
	}
}

// TestUnsupportedOS checks, on every OS, the error Start returns where it
// cannot run PostgreSQL: callers that offer --database-url on ErrNoBinaries
// must do so here too.
func TestUnsupportedOS(t *testing.T) {
	err := error(unsupportedOS{goos: "windows"})
	for _, target := range []error{ErrNoBinaries, procgroup.ErrUnsupported} {
		if !errors.Is(err, target) {
			t.Errorf("errors.Is(%v, %v) = false, want true", err, target)
		}
	}
	for _, want := range []string{"not supported on windows", "Linux and other Unix systems only", "--database-url", "DATABASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
