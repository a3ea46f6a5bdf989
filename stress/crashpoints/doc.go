// Package crashpoints holds idemstress's end-to-end tests of crash-at,
// the crash at a point of a call's database work that the PostgreSQL
// proxy holds: the correct designs of the sample pass with every point
// tried, and the two designs that split a call's work over two
// transactions are caught on ten seeds of ten. Each seed waits out
// crashes, restarts and recoveries while it shrinks, so they have a test
// binary of their own, and stress/procfaults stays well inside go test's
// ten minutes.
package crashpoints
