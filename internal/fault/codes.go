package fault

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// The faults that name the failure they deal (model.FaultKind.Coded) name
// it in Call.Point: db-error a SQLSTATE ("40001"), dep-error a dependency
// and a Redis failure ("redis OOM").

// CheckCode refuses a failure fault f, which names its failure, cannot
// deal.
func CheckCode(f model.Fault, point string) error {
	if f == model.FaultDepError {
		_, _, err := ParseDepError(point)
		return err
	}
	return CheckDBErrorCode(point)
}

// EarlierCodes are the failures fault f deals that shrinking prefers to
// point's (40001 before 57P01; "redis OOM" before "redis cut", at the
// same dependency), in order.
func EarlierCodes(f model.Fault, point string) []string {
	if f != model.FaultDepError {
		if i := slices.Index(DBErrorCodes, point); i > 0 {
			return slices.Clone(DBErrorCodes[:i])
		}
		return nil
	}
	dep, code, err := ParseDepError(point)
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range DepErrorCodes[:slices.Index(DepErrorCodes, code)] {
		out = append(out, DepErrorPoint(dep, c))
	}
	return out
}
