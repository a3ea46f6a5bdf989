// Package engine is the runner of a run: the search (W plans at once,
// each dealt its fault or point first), every bug it finds told from the
// reported ones, each shrunk (rapid, then its own pass) and filed as a bug
// of its own or a sighting of one, the points learned before the search,
// and the final verdict of the run's tallies. It reaches the target and
// the database only through a Session (stress's, behind an adapter), and
// its tests through a scripted one, with no service and no PostgreSQL.
// stress.Run derives its Settings from a Config in one function.
package engine
