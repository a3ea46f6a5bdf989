// Package onerun holds the end-to-end test of issue 16's done-when: one
// run with the default budget, against the sample as processes in three
// bug modes at once (a 500 under a burst, a key stuck after a crash, a
// hang under a burst), reports all three, each minimal. Its hangs and
// crashes make it slow (minutes), so it has a test binary of its own, and
// stress/shapes and stress/zoo stay well inside go test's ten minutes.
package onerun
