package report

import (
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/model"
)

// timelineBound bounds the search behind a timeline: past it, the timeline
// shows the longest serial orders found so far.
const timelineBound = 10 * time.Second

// WriteTimeline writes porcupine's HTML visualisation of one action's calls:
// each call on its own row, and the longest serial orders the model accepts,
// with the state after every step. The search behind it is bounded (10s);
// past the bound the timeline shows what was found so far.
func WriteTimeline(w io.Writer, c model.Contract, ops []model.Op) error {
	_, info := checks.Linearizable(c, ops, timelineBound)
	if err := porcupine.Visualize(checks.Model(c), info, w); err != nil {
		return fmt.Errorf("timeline: writing the visualisation of %d calls: %w", len(ops), err)
	}
	return nil
}
