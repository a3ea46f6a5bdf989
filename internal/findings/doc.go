// Package findings declares what a run found, once: a Failure (a bug,
// shrunk), the Sightings filed under it, and the Result with its report
// rows and check statuses; stress names these types for its callers.
// Beside them, the pure rules that relate failures: which reported bug a
// failure's plan holds, which of two heads a bug's row, and the order of
// the bugs (root causes first). The search (internal/engine) fills them in.
package findings
