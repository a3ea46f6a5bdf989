// Package built builds the idemstress command once per test binary, for
// the end-to-end tests that run it as users install it
// (cmd/idemstress/demotest, cmd/idemstress/inittest).
package built

import (
	"errors"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

var (
	once   sync.Once
	binary string
	err    error
)

// Idemstress is the path of the idemstress command built from this
// module, built on the first call of the test binary. Under -short it
// skips the test: building and running the command is slow.
func Idemstress(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds idemstress and runs it as a process")
	}
	once.Do(func() {
		dir, mkErr := pgtest.BinaryDir()
		if mkErr != nil {
			err = mkErr
			return
		}
		binary = filepath.Join(dir, "idemstress")
		if out, buildErr := exec.Command("go", "build", "-o", binary, "github.com/idemstress/idemstress/cmd/idemstress").CombinedOutput(); buildErr != nil {
			err = errors.New("building idemstress: " + buildErr.Error() + "\n" + string(out))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return binary
}
