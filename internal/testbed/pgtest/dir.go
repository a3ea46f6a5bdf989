package pgtest

import (
	"errors"
	"os"
	"sync"
)

var (
	dirOnce sync.Once
	dir     string
	dirErr  error
)

// BinaryDir is a directory the tests of this binary share for what they
// build once (the sample's binary, the idemstress command), made on the
// first call and removed when Main's tests have run: a test's own
// t.TempDir would go with the test that built it first, and a directory
// of the system's left behind took gigabytes over a day of test runs.
func BinaryDir() (string, error) {
	if !mainCalled {
		return "", errors.New("pgtest: no binary directory: TestMain must call pgtest.Main(m, &cluster)")
	}
	dirOnce.Do(func() { dir, dirErr = os.MkdirTemp("", "idemstress-testbin-") })
	return dir, dirErr
}

// removeBinaryDir removes what BinaryDir made, if it made anything.
func removeBinaryDir() error {
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}
