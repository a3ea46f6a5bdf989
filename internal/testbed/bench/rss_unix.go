//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// childMaxRSSMiB is the peak resident set of a child that has exited, from
// its rusage: KiB on Linux, bytes on Darwin.
func childMaxRSSMiB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}
