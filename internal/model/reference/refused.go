package reference

import (
	"github.com/idemstress/idemstress/internal/model"
)

// Refused reports an answer that refuses a call: a conflict or invalid
// answer, or a 4xx the contract names no outcome for. A service may
// refuse a broken call with its validation status (400, 422) whatever
// else that status means in the contract, so a refusal is any of these.
func Refused(out model.Outcome) bool {
	switch out.Kind {
	case model.Conflict, model.Invalid:
		return true
	case model.Other:
		return out.Status >= 400 && out.Status < 500
	}
	return false
}
