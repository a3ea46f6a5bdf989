// Package procfaults holds idemstress's end-to-end tests of the faults
// that act on the service's processes: the sample's binary started as
// processes that plans restart, crash (before and after the commit, at the
// key record), pause and fail inside (db-error), with the errors: policy
// both ways. Every one waits out restarts and recoveries, so they have a
// test binary of their own, and stress/shapes stays well inside go test's
// ten minutes.
package procfaults
