//go:build unix

package process_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/process"
)

// The service's secrets, printed by the service, reach neither the error
// quoting its output nor its log file: both are masked as the terminal is.
func TestServiceOutputIsMasked(t *testing.T) {
	log := filepath.Join(t.TempDir(), "service.log")
	script := "echo PGPASSWORD=hunter2; echo DB_PASSWORD=hunter2; echo connecting to postgres://app:hunter2@db/app; echo Authorization: Bearer ya29.hunter2; exit 3"
	_, err := process.Start(ctx(t), process.Spec{Command: []string{"/bin/sh", "-c", script}, Log: log}, "")
	if err == nil {
		t.Fatal("a service that exits at once started")
	}
	b, readErr := os.ReadFile(log)
	if readErr != nil {
		t.Fatal(readErr)
	}
	for what, s := range map[string]string{"the error": err.Error(), "the log": string(b)} {
		if strings.Contains(s, "hunter2") || !strings.Contains(s, "PGPASSWORD=xxxxx") || !strings.Contains(s, "app:xxxxx@db") {
			t.Errorf("%s: %q", what, s)
		}
	}
}
