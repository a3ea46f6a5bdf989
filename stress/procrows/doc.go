// Package procrows counts the rows of the sample's bug modes run as
// processes (restarts, crashes, database errors, slow originals): one bug,
// one row. Each mode searches all its plans after its bug, waiting out
// restarts and recoveries, so the count has a test binary of its own and
// stress/procfaults stays well inside go test's ten minutes.
package procrows
