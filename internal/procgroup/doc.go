// Package procgroup is what the operating system offers for supervising a
// child as a process group of its own: starting it as the leader of one
// (SysProcAttr), signalling the whole group (Send), and telling whether the
// group still runs, has stopped, or holds a port (Running, Stopped,
// WhoListens). It needs process groups and POSIX signals, so it works on
// Linux and other Unix systems; elsewhere it fails with ErrUnsupported.
// Linux does more than the others can: a child dies with its parent, and
// /proc tells who listens on a port and when a stopped group's threads have
// all stopped. It starts nothing and keeps no state: package process
// supervises the service's replicas with it, and package pgtemp its
// throwaway cluster.
package procgroup

// Listener is who listens on a child's port, as far as the OS tells.
type Listener int

const (
	ListenerUnknown Listener = iota // the OS cannot tell
	ListenerNone
	ListenerOurs
	ListenerForeign
)
