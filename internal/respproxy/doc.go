// Package respproxy is a RESP (Redis serialization protocol, RESP2 and
// RESP3) proxy on 127.0.0.1 that a service connects to instead of its
// key store: the crash and error points of issue 27's nemesis at each
// command of a call, as package pgproxy gives them at each statement.
//
// # Relay
//
// Start listens on a free loopback port; each client connection dials
// Options.Server (a client of a server that is down, or restarting, sees
// its connection closed) and from then on every command goes to the
// server as its bytes came, and every reply to the client. The proxy
// reads the client's commands (arrays of bulk strings, or inline lines)
// and the server's replies whole (RESP2, and RESP3's maps, sets,
// attributes, pushes, doubles, big numbers, verbatim and streamed
// strings), so that each reply is matched to the command it answers:
// Redis answers a connection's commands in order, pipelined or not. A
// RESP3 push ('>') answers no command and passes on. It does not read
// TLS.
// The listener, a session's goroutines, the call registry and a call's
// hook, trace and injections are package wireproxy's, shared with the
// PostgreSQL proxy; this package holds the protocol.
//
// # Ties and points
//
// Proxy.Tie registers a live call with its marker bytes (its key, tag or
// tenant as the service sends them). A command one of whose arguments
// contains a marker is the call's; a MULTI … EXEC block is the call's
// when one of its queued commands carries one, and its EXEC is then its
// one command (queued commands are run at the EXEC, all at once). The
// call's own hook (Call.SetAt), else Options.At, is consulted at two
// points of each of its commands: BeforeCommand (nothing of it has
// reached the server) and AfterCommand (the server has run it and
// answered; the client has not read the answer), with the command's name
// and its count among the call's commands of that name ("SET" 2: the
// call's second SET). It answers Continue, Hold (block until released,
// the client's connection ends or the proxy closes: with a SIGKILL of
// the client's process, a crash exactly at the point), Error(code) (a
// Redis error reply in the command's place, before it; a Cut after it)
// or Cut (close both connections). Call.Trace lists the points a call
// passed, from which a search enumerates the crash points of a call at
// the key store; Call.Injected lists the errors and cuts delivered.
//
// # Limits
//
// After SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, MONITOR or CLIENT REPLY a
// connection's replies no longer answer its commands one to one: the
// session is relayed as it is from then on, with no points. A marker is
// looked for in the arguments only, so a command whose key is hashed or
// encoded by the client (a key made of a digest of the idempotency key)
// is no call's. Calls registered with the same marker cannot be told
// apart: the first registered takes every matching command.
//
// # In idemstress
//
// A run with a process section puts one proxy in front of each declared
// dependency that speaks RESP (a redis:// or valkey:// url, or a
// redis-server or valkey-server command): the service's {dep.NAME.url},
// addr and port name the proxy, the dependency's restarts and crashes
// happen behind it. The interpreter ties every call there by the markers
// it ties at the PostgreSQL proxy, and crash-at's points at a dependency
// ("after redis SET 1") are learned and dealt with the database's. See
// docs/faults.md.
package respproxy
