//go:build !unix

package bench

import "os"

// childMaxRSSMiB is 0 where a child's rusage is not there.
func childMaxRSSMiB(*os.ProcessState) float64 { return 0 }
