// Package calls makes idemstress init's calls against the service with a
// draft's request: one call as a run would send it (Send, which
// internal/draft/effects uses for its create call), the variants of the
// payload's fields, whose refusals make a field fixed, and a replay, a
// changed payload and a keyless call, whose answers replace the IETF
// draft's guessed statuses. It reads no document and no database.
package calls
