// Package zoorows counts the rows of every bug mode of the sample that
// the demo serves in-process, run as `idemstress run` runs it: one bug,
// one row, its other sightings listed under it. Each mode searches all its
// plans after its bug, so the count has a test binary of its own and
// stress/zoo stays well inside go test's ten minutes.
package zoorows
