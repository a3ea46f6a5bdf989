package pgtemp

import (
	"os"
	"syscall"
)

// memDir is a memory-backed directory (tmpfs) for a cluster whose
// durability is off anyway: on a disk, creating a database (7.5 MB of
// catalog files) costs the server about 130 ms of CPU, mostly in the
// kernel, and close to a second of wall time when the disk is busy; on
// tmpfs it costs a quarter of that CPU.
const memDir = "/dev/shm"

// memDirMinFree is the free space memDir must have for Start to use it:
// a test binary's cluster grows by 7.5 MB a database it creates, and a
// container's default /dev/shm holds only 64 MB.
const memDirMinFree = 4 << 30

// tempBase is the directory Start makes its cluster's directory in: ""
// (os.TempDir) if TMPDIR is set, else memDir if it is a writable directory
// with at least memDirMinFree bytes free, else "".
func tempBase() string {
	if os.Getenv("TMPDIR") != "" {
		return ""
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(memDir, &st); err != nil {
		return ""
	}
	if st.Bavail*uint64(st.Bsize) < memDirMinFree || syscall.Access(memDir, 2|1) != nil { // W_OK|X_OK
		return ""
	}
	return memDir
}
