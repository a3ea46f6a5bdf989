// Package points learns, deals and counts what a run's faults name as
// plan data: the points of a call's database work and of its commands at
// a dependency (crash-at), and the failures a coded fault deals
// (db-error's SQLSTATE, dep-error's Redis failure). They are learned
// before the search, from one unfaulted call and its retry through the
// run's session (Source), put in the world each dealt a plan, and counted
// in the run's coverage, which starts here too (StartCoverage); after the
// search the run says how many were tried.
package points
