package regress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/atomicfile"
	"github.com/idemstress/idemstress/internal/boundedfile"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Write writes c into dir (created if missing) as NAME.json and returns its
// path. The same case found again replaces its file whole (written beside
// it, then renamed): a reader, say another shard on the same volume, sees
// the old case or the new, never a torn file.
func Write(dir string, c Case) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("regression case: %w", err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", fmt.Errorf("regression case %s: %w", c.Name, err)
	}
	path := filepath.Join(dir, c.Name+".json")
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return "", fmt.Errorf("regression case: %w", err)
	}
	return path, nil
}

// maxCase bounds a case file: a minimal plan and its violations are a few
// KiB, and a path such as /dev/zero must not be read until memory runs out.
const maxCase = 16 << 20

// read reads one case file of this format or an older one, refusing one of
// a newer format, larger than 16 MiB, or that Decode refuses.
func read(path string) (Case, error) { return readCase(context.Background(), path) }

func readCase(ctx context.Context, path string) (Case, error) {
	b, err := boundedfile.Read(ctx, path, maxCase, "a case file")
	if err != nil {
		return Case{}, fmt.Errorf("regression case: %w", err)
	}
	return decode(path, b)
}

// decode decodes the case file named path, refusing one of a newer
// format, without a plan and check, with a check outside the catalogue,
// or with a plan that cannot be run as written (a call or burst step
// without calls, a restart with calls, a step or fault of a kind this
// idemstress does not know). Its PlanText is the plan's, whatever the
// file's plan_text says.
func decode(path string, b []byte) (Case, error) {
	var c Case
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("regression case %s: not a case file: %w", path, err)
	}
	switch {
	case c.Version > version:
		return Case{}, fmt.Errorf("regression case %s: format version %d; this idemstress reads up to %d: upgrade idemstress", path, c.Version, version)
	case c.Version < 1:
		return Case{}, fmt.Errorf("regression case %s: no version field: not a case file", path)
	case len(c.Plan.Steps) == 0 || c.Check.ID == "":
		return Case{}, fmt.Errorf("regression case %s: no plan or no check", path)
	case c.Version == 1:
		// version 1 kept what version 2 calls last_seen beside the rest.
		var v1 struct {
			Check struct {
				Observed string `json:"observed"`
			} `json:"check"`
			Seed       uint64             `json:"seed"`
			Violations []checks.Violation `json:"violations"`
			Idemstress string             `json:"idemstress_version"`
			Go         string             `json:"go_version"`
		}
		if err := json.Unmarshal(b, &v1); err != nil {
			return Case{}, fmt.Errorf("regression case %s: not a version 1 case file: %w", path, err)
		}
		c.LastSeen = Sighting{Seed: v1.Seed, Observed: v1.Check.Observed, Violations: v1.Violations, Idemstress: v1.Idemstress, Go: v1.Go}
	}
	if known, _ := checks.Lookup(c.Check.ID); known.Name == "" {
		// A check nobody knows never fires: its case would pass unheard.
		return Case{}, fmt.Errorf("regression case %s: check %q is not in this idemstress's catalogue (IDEM-001 to IDEM-%03d): fix the file, or upgrade idemstress", path, c.Check.ID, len(checks.Catalogue()))
	}
	if err := runnable(c.Plan); err != nil {
		return Case{}, fmt.Errorf("regression case %s: %w", path, err)
	}
	// The plan is what replays; plan_text is for people, and a hand-edited
	// file may not have kept it in step: show what will run.
	c.PlanText = c.Plan.Compact()
	c.Path = path
	return c, nil
}

// runnable refuses a plan that cannot run as written. A restart step has
// no calls (the case files of restart and crash bugs have them); a call or
// burst step without one sends nothing, and its case would pass unheard.
func runnable(p model.Plan) error {
	calls := 0
	for i, st := range p.Steps {
		switch st.Kind {
		case model.StepCall, model.StepBurst:
			if len(st.Calls) == 0 {
				return fmt.Errorf("step %d of the plan (%s) has no call", i+1, st.Kind)
			}
		case model.StepRestart:
			if len(st.Calls) > 0 {
				return fmt.Errorf("step %d of the plan (restart) has calls; a restart has none", i+1)
			}
		case model.StepFault:
			// A fault of its own: a dependency's restart or crash.
			if k, ok := faultkind.KindOf(st.Fault); !ok || k.Scope != faultkind.AsStep {
				return fmt.Errorf("step %d of the plan: fault step %q; want one of %v", i+1, st.Fault, stepFaults())
			}
			if len(st.Calls) > 0 || st.Target == "" {
				return fmt.Errorf("step %d of the plan (%s): a fault step has no calls and names what it acts on (target)", i+1, st.Fault)
			}
		default:
			return fmt.Errorf("step %d of the plan: kind %q; want %q, %q, %q or %q", i+1, st.Kind, model.StepCall, model.StepBurst, model.StepRestart, model.StepFault)
		}
		for _, call := range st.Calls {
			if k, ok := faultkind.KindOf(call.Fault); call.Fault != model.FaultNone && (!ok || k.Scope != faultkind.OnCall) {
				return fmt.Errorf("step %d of the plan: fault %q of a call; want one of %v", i+1, call.Fault, callFaults())
			}
			switch k, _ := faultkind.KindOf(call.Fault); {
			case k.AtPoint:
				if _, err := fault.ParsePoint(call.Point); err != nil {
					return fmt.Errorf("step %d of the plan: call %s: %w", i+1, call, err)
				}
			case k.Coded:
				if err := fault.CheckCode(call.Fault, call.Point); err != nil {
					return fmt.Errorf("step %d of the plan: call %s: %w", i+1, call, err)
				}
			case call.Point != "":
				return fmt.Errorf("step %d of the plan: call %s: a point (%q) without a fault that lands at one", i+1, call, call.Point)
			}
			if call.Variant < 0 || call.Encoding < 0 || call.Noise < 0 || call.Noise >= model.NumNoise {
				return fmt.Errorf("step %d of the plan: call %s: a negative variant or encoding, or an unknown noise", i+1, call)
			}
		}
		calls += len(st.Calls)
	}
	if calls == 0 {
		return errors.New("the plan has no call: it would pass unheard")
	}
	return nil
}

// callFaults are the faults a call of a plan may carry.
func callFaults() []model.Fault {
	return slices.DeleteFunc(slices.Clone(faultkind.PlannedFaults), func(f model.Fault) bool { k, _ := faultkind.KindOf(f); return k.Scope != faultkind.OnCall })
}

// stepFaults are the faults that are steps of their own (StepFault).
func stepFaults() []model.Fault {
	return slices.DeleteFunc(slices.Clone(faultkind.PlannedFaults), func(f model.Fault) bool {
		k, _ := faultkind.KindOf(f)
		return k.Scope != faultkind.AsStep || f == model.FaultRestart
	})
}

// Load reads the cases named by paths: files, and directories whose *.json
// files are read in name order. A directory without any is an error, so a
// mistyped path never passes as "no regressions".
func Load(paths ...string) ([]Case, error) { return LoadContext(context.Background(), paths...) }

// LoadContext is Load, stopping when ctx ends (a signal while reading).
func LoadContext(ctx context.Context, paths ...string) ([]Case, error) {
	var cases []Case
	for _, p := range paths {
		files := []string{p}
		if info, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("regression case: %w", err)
		} else if info.IsDir() {
			files = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("regression case: %w", err)
			}
			for _, e := range entries {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("regression case: %w: no *.json case file in directory %s", fs.ErrNotExist, p)
			}
			slices.Sort(files)
		}
		for _, f := range files {
			c, err := readCase(ctx, f)
			if err != nil {
				return nil, err
			}
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return nil, errors.New("regression case: no file or directory given")
	}
	return cases, nil
}
