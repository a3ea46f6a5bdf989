// Package sighting files a shrunk failure about to be reported: a bug of
// its own, or a sighting of a reported bug listed under that bug's row.
// One root cause is one row whatever check, fault or interleaving shows
// it (sighting.go: shared inputs; over.go: one mistake about a restart,
// fault or race seen through an input of the failure's own; after.go: a
// fault's mistake seen again through its retry). The pure relations
// between two plans are internal/findings' and internal/shrink's; the
// experiments that decide, plans executed again with an ingredient
// stripped, reach the service through one function (Experiments.ShowsIn),
// so the engine runs them and its tests script them.
package sighting
