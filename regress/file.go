package regress

import (
	"bytes"
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

// Read reads one case file of this format or an older one, refusing one of
// a newer format, without a plan and check, or with a step that has no
// call. Its PlanText is the plan's, whatever the file's plan_text says.
func Read(path string) (Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Case{}, fmt.Errorf("regression case: %w", err)
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("regression case %s: not a case file: %w", path, err)
	}
	switch {
	case c.Version > Version:
		return Case{}, fmt.Errorf("regression case %s: format version %d; this idemstress reads up to %d: upgrade idemstress", path, c.Version, Version)
	case c.Version < 1:
		return Case{}, fmt.Errorf("regression case %s: no version field: not a case file", path)
	case len(c.Plan.Steps) == 0 || c.Check.ID == "":
		return Case{}, fmt.Errorf("regression case %s: no plan or no check", path)
	case c.Version == 1:
		// Version 1 kept what version 2 calls last_seen beside the rest.
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
	// A step without a call sends nothing: its case would pass unheard.
	for i, st := range c.Plan.Steps {
		if len(st.Calls) == 0 {
			return Case{}, fmt.Errorf("regression case %s: step %d of the plan has no call", path, i+1)
		}
	}
	// The plan is what replays; plan_text is for people, and a hand-edited
	// file may not have kept it in step: show what will run.
	c.PlanText = c.Plan.Compact()
	c.Path = path
	return c, nil
}

// Load reads the cases named by paths: files, and directories whose *.json
// files are read in name order. A directory without any is an error, so a
// mistyped path never passes as "no regressions".
func Load(paths ...string) ([]Case, error) {
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
			c, err := Read(f)
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
