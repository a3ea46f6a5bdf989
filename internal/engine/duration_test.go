package engine

import (
	"testing"
	"time"
)

// Plans still running past the duration (and its grace) are cut and not
// counted: many workers whose plans hang do not overrun --duration.
func TestSearchHonoursTheDuration(t *testing.T) {
	cfg := engineConfig(1000)
	cfg.Duration, cfg.Workers = 200*time.Millisecond, 8
	s := &scripted{slow: 30 * time.Second}
	start := time.Now()
	r := runEngine(t, cfg, s, 1)
	if took := time.Since(start); took > cfg.Duration+graceAfter(cfg.Duration)+2*time.Second {
		t.Errorf("the search took %s for a duration of %s", took, cfg.Duration)
	}
	if r.searched != 1 {
		t.Errorf("%d plans counted, want the one that ended in time", r.searched)
	}
}
