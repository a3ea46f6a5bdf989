package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/stress"
)

// progressLine shows a run's stress.Progress on stderr: on a terminal one
// line rewritten in place, at most ten times a second; elsewhere (a CI
// log, a file) a plain line every interval.
type progressLine struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	label    string

	mu    sync.Mutex
	last  time.Time
	shown bool
}

// newProgress renders progress to w, in place when w is a terminal.
func newProgress(w io.Writer, label string) *progressLine {
	if pw, ok := w.(report.PrintableWriter); ok {
		// The line is idemstress's own text, and rewrites itself in place
		// with the terminal's control sequences.
		w = pw.W
	}
	return &progressLine{w: w, tty: isTerminal(w), interval: 10 * time.Second, label: label}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	if r, ok := w.(redact.Writer); ok {
		w = r.W
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Update is a stress.Config.Progress.
func (p *progressLine) Update(pr stress.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	every := p.interval
	if p.tty {
		every = 100 * time.Millisecond
	}
	if now := time.Now(); !p.last.IsZero() && now.Sub(p.last) < every {
		return
	} else {
		p.last = now
	}
	line := progressText(p.label, pr)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// Done ends the line in place, so that what follows starts on its own.
func (p *progressLine) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// progressText is one line of progress.
func progressText(label string, pr stress.Progress) string {
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Calls) / s
	}
	bugs := "none"
	if len(pr.Bugs) > 0 {
		ids := make([]string, len(pr.Bugs))
		for i, b := range pr.Bugs {
			ids[i] = string(b)
		}
		bugs = strings.Join(ids, ",")
	}
	line := fmt.Sprintf("idemstress: %s%s %s: %d plans, %d executions, %.0f calls/s, %d faults fired, bugs: %s",
		label, pr.Elapsed.Round(time.Second), pr.Phase, pr.Plans, pr.Executions, rate, pr.FaultsFired, bugs)
	if pr.Shrinking != "" {
		line += ", shrinking " + string(pr.Shrinking)
	}
	return line
}
