// Package pgproxy is a PostgreSQL wire-protocol proxy on 127.0.0.1 that a
// service connects to instead of its database: the foundation of issue
// 27's database-protocol nemesis (crash, error and hold points at every
// statement boundary of a call).
//
// # Relay
//
// Start listens on a free loopback port (or Options.Listen, a loopback
// address only); Proxy.URL rewrites a postgres://
// URL's host and port to it. For each client connection the proxy reads
// the startup with pgproto3.Backend (SSLRequest and GSSENCRequest are
// answered 'N', so a client with sslmode=prefer, pgx's default, goes on in
// plain text; sslmode=require cannot work), dials the server and sends the
// StartupMessage with pgproto3.Frontend, and from then on relays whole
// messages byte for byte in both directions. Authentication (cleartext,
// MD5, SCRAM) passes through unread; a CancelRequest goes on to the server
// on a connection of its own. The proxy decodes, with pgproto3's message
// types, only what it follows: the client's Query, Parse, Bind, Execute,
// Close and Sync, and the server's answers to them. The simple and the
// extended protocol, pipelines (pgx batches) and COPY pass.
// The listener, a session's goroutines, the call registry and a call's
// hook, trace and injections are package wireproxy's, shared with the
// RESP proxy; this package holds the protocol.
//
// # Sessions, events and ties
//
// Each session keeps the client messages the server still owes an answer
// for, in order, so each CommandComplete or ErrorResponse is matched to
// the statement it answers (after an ErrorResponse in the extended
// protocol the server skips to the Sync, and so does the match). A
// statement is a Query or an Execute (with the text of its portal's
// statement and its bound parameters). Options.OnEvent receives every
// session's events: statement begins, statement answered, commit begins,
// commit answered, transaction ends (ReadyForQuery back to 'I' after a
// tied transaction).
//
// Proxy.Tie registers a live call with its marker bytes (its key, tag,
// tenant as the service sends them). A session whose statement text or
// parameters contain a marker is tied to that call until its
// ReadyForQuery says idle, so the later statements of the transaction
// without the marker are the call's too. Statements of the transaction
// before the first marker (BEGIN, a SELECT) are not: they cannot be known
// to be the call's when they pass. A call whose later transaction carries
// its marker again passes a BetweenTransactions point before it.
//
// # Points and actions
//
// The call's own hook (Call.SetAt), else Options.At, is consulted at
// every point of a tied session: BeforeStatement, AfterStatement (the server answered, the client has not
// seen it), BeforeCommit, AfterCommit and BetweenTransactions, each with
// the call, the statement's index in the call and its text. It answers
// Continue, Hold (block until released, the client's connection ends or
// the proxy closes: with a SIGKILL of the replica, a crash exactly at the
// point), Error(code) or Cut (close both connections). See Error for how
// each SQLSTATE is answered honestly: an ERROR-level code before a
// statement is raised by the server itself in its place (a DO block that
// RAISEs it), so the client reads the server's ErrorResponse and the
// server's transaction is really failed. Call.Trace is the ordered list of
// a call's points with statement fingerprints, from which a search can
// enumerate the crash points of a transition. Call.Injected lists the
// errors and cuts really delivered to a call's sessions (a raised error
// the server skipped is not one), so a fault fires only on delivery.
// Held counts the sessions waiting in a Hold; with Open, a statement
// barrier sees that a client waiting for a pool connection cannot get
// one. Writes says which statements write or lock rows: where a barrier
// holds and db-error answers.
//
// # Limits
//
// A Query carrying several statements is one statement here, answered at
// its ReadyForQuery. The AfterStatement and AfterCommit points of a Query
// hold its ReadyForQuery, when the client has read the CommandComplete
// but not yet returned (pgx and libpq wait for ReadyForQuery). The
// injected Execute uses the unnamed statement and portal, replacing the
// client's unnamed ones (which no driver reuses after an error). A client
// that pipelines more than 64 messages while its session is held is seen
// to die only when it next reads. Calls registered with the same marker
// (a burst of one key) cannot be told apart by it: the first registered
// takes every matching session, so a burst wants a marker of each call's
// own or ties per action rather than per call.
//
// # In idemstress
//
// A run starts one proxy (package stress: for every replica of a process
// section, handed as {database_url}; on Config.DBProxy's address for a
// service started elsewhere), the interpreter ties every call by its key
// and tag while it is sent, and a call fault reaches the faulted call's
// tie (fault.CallEnv.DBCall) and answers at its points with a hook of its
// own (Call.SetAt) while Options.At stays nil. See docs/faults.md.
package pgproxy
