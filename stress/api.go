package stress

import (
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/report"
)

// What stress's own methods hand out, by names a caller can write: the
// types are defined under internal/, where they are made.
type (
	// IndexAdvice is one index a contract's effect reads need
	// (Session.Indexes, idemstress doctor).
	IndexAdvice = observe.IndexAdvice
	// Row is a result as a row of the report table (Result.Row, Result.Rows).
	Row = report.Row
	// ReportSighting is a sighting as its bug's row lists it
	// (Sighting.Report).
	ReportSighting = report.Sighting
)
