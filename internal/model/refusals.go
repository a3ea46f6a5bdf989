package model

// Refusals is the contract's refusals: policy, what a call the service
// refuses for its input (a payload that breaks a declared rule) does to
// its key. Stripe's documentation warns of the mistake it guards: a
// validation failure saved under the key, so that the corrected request
// with the same key is refused for as long as the key is kept.
type Refusals string

const (
	// RefusalsNotStored (the default, also ""): a refused call leaves its
	// key unused, and the fixed call with the same key is executed.
	RefusalsNotStored Refusals = "not-stored"
	// RefusalsStored: the refusal is saved under the key, and every later
	// call with the key gets it again (the same status), or a conflict,
	// for its payload differs from the one saved.
	RefusalsStored Refusals = "stored"
	// RefusalsUntested: no call that breaks a rule is sent (the rules only
	// keep variants valid; the service may take more than they say).
	RefusalsUntested Refusals = "untested"
)

// Breaking is the contract whose Render, Send and their form variants
// encode payloads with breakage broken (Call.Broken, from 1) applied
// after the variant: the body of a call the service must refuse. 0 is
// the contract itself.
func (c Contract) Breaking(broken int) Contract {
	c.breaking = broken
	return c
}

// Broken is the breakage (Call.Broken, from 1) the contract's payloads
// are rendered with (see Breaking); 0: none.
func (c Contract) Broken() int { return c.breaking }
