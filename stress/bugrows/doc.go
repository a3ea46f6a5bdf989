// Package bugrows counts the rows of every bug mode of the sample that
// the demo serves in-process, run as `idemstress run` runs it: one bug,
// one row, its other sightings listed under it. Each mode searches all its
// plans after its bug, so the count has a test binary of its own and
// stress/zoo stays well inside go test's ten minutes. Beside the rows runs
// issue 16's done-when: one run with the default budget, against the
// sample as processes in three bug modes at once (a 500 under a burst, a
// key stuck after a crash, a hang under a burst), reports all three, each
// minimal; it mostly waits out hangs and crashes, as the hang row does.
// go test starts test binaries in import-path order, two at a time on
// two cores: this one, the longest, sorts right after stress and
// stress/apis, so that it does not run alone at the end of the suite.
package bugrows
