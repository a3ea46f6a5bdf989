package bench

import (
	"fmt"

	"github.com/idemstress/idemstress/stress"
)

// setWorkers asks a run for w plans at once.
func setWorkers(_ *stress.Config, w int) error {
	if w != 1 {
		return fmt.Errorf("P3: stress.Config has no Workers field yet (parallel plans are not merged): W=%d cannot run", w)
	}
	return nil
}

// workerCounts are the W of P3 this commit can run.
var workerCounts = []int{1}
