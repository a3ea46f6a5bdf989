package sample

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/stress"
)

// The second sample, examples/paysvc (a Square-like payments API), has rows
// of its own, named "paysvc/MODE": its two correct modes (the key in the
// JSON body; the key in X-Request-Id), then its bugs. idemstress runs them
// all as processes, the correct ones with every fault kind.
const (
	payPrefix    = "paysvc/"
	PayCorrect   = payPrefix + "correct"
	PayRequestID = payPrefix + "request-id"
)

// PayModes lists paysvc's rows: its correct modes, then every bug.
func PayModes() []string {
	modes := []string{PayCorrect, PayRequestID}
	for _, b := range paysvc.Bugs() {
		modes = append(modes, payPrefix+b)
	}
	return modes
}

// IsPay reports whether a row is paysvc's.
func IsPay(mode string) bool { return strings.HasPrefix(mode, payPrefix) }

// PayProcessConfig is a run of paysvc as processes in one of its rows,
// started by idemstress over the database at dbURL, the correct rows with
// every fault kind planned. serve is the command that serves paysvc,
// before its flags: its binary (BuildPayBinary), or an idemstress
// binary's "sample-service paysvc".
func PayProcessConfig(serve []string, dbURL, mode string) (stress.Config, error) {
	if !IsPay(mode) || !slices.Contains(PayModes(), mode) {
		return stress.Config{}, fmt.Errorf("sample: no paysvc row %q (rows: %s)", mode, strings.Join(PayModes(), ", "))
	}
	name, contract := "examples/paysvc/contract.yaml", paysvc.Contract
	command := append(slices.Clone(serve), "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}")
	switch mode {
	case PayRequestID:
		name, contract = "examples/paysvc/contract_request_id.yaml", paysvc.ContractRequestID
		command = append(command, "-key-header", "X-Request-Id")
	case PayCorrect:
	default:
		command = append(command, "-bug", strings.TrimPrefix(mode, payPrefix))
	}
	cfg, err := stress.Parse(name, contract)
	if err != nil {
		return stress.Config{}, err
	}
	cfg.Process = &process.Spec{Command: command}
	cfg.DatabaseURL = dbURL
	if Passes(mode) {
		cfg.Faults = slices.Clone(everyFault)
		cfg.Process.Replicas = 2 // the paused call's retry goes to the other replica
	}
	cfg.Contract.Recovery = recovery
	cfg.StallWait = stallWait
	return cfg, nil
}

// BuildPayBinary builds paysvc's binary into dir and returns its path, for
// tests that have idemstress start it as a process. It needs the go
// command, as `go test` does.
func BuildPayBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "paysvc")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/idemstress/idemstress/examples/paysvc/cmd/paysvc").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("sample: building paysvc: %w\n%s", err, out)
	}
	return bin, nil
}
