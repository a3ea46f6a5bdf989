// Package shrink holds the pure edits of a plan that shrinking tries and
// the relations between two plans that bug identity and sightings read:
// the candidates one step simpler than a plan (delta debugging over steps
// and calls, then simpler calls, renamed tenants and keys), the
// ingredients a plan may have beyond plain calls and how to strip each,
// and whether one plan is within or a strict sub-plan of another. It runs
// nothing: internal/engine's search executes the candidates.
package shrink
