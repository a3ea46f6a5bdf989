// Package wireproxy is what the PostgreSQL proxy (package pgproxy) and the
// RESP proxy (package respproxy) share whatever their protocol: one home
// for the shape both have, so that a fix to it is made once.
//
//   - Listen: a proxy's loopback listener, one goroutine per client
//     connection, and Close, which ends every session and waits for all of
//     its goroutines. It counts the sessions open and those waiting in a
//     Hold.
//   - Session and Serve: one client connection and its server connection,
//     served by three goroutines (the client's reader, the handler of its
//     messages in order, the relay of the server's side) that all end when
//     the session's context ends, closing both connections.
//   - Registry: the live calls and the marker bytes (a call's idempotency
//     key, tag, tenant as the service sends them) that tie a session's
//     traffic to one of them; Match finds the first call one of whose
//     markers a byte string contains.
//   - Call: what a proxy keeps of a live call: its name, its own hook,
//     the trace of the points its traffic passed and the faults delivered
//     to it. Consult records a point and asks the call's hook, else the
//     proxy's.
//
// Each protocol's reading, its points, its actions and how it delivers an
// error stay in its own package.
package wireproxy
