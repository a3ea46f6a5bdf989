package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// resetPeakRSS resets this process's peak resident set to its current one
// (Linux 4.0 and later); PeakRSSMiB reads it back (VmHWM), 0 where it
// cannot.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMiB is this process's peak resident set since it started or since
// resetPeakRSS, in MiB; 0 where /proc is not there.
func peakRSSMiB() float64 {
	kb, ok := procField("/proc/self/status", "VmHWM:")
	if !ok {
		return 0
	}
	return float64(kb) / 1024
}

// procField reads a "Name:   123 kB" line of a /proc file.
func procField(path, name string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
