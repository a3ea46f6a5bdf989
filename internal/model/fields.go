package model

// FieldRule says how payload variants change one field (the contract's
// fields:, keyed by JSON pointer). The zero rule is the default: a string
// gets a suffix (" #2"), a number is moved by a step, a boolean or null
// stays as it is.
type FieldRule struct {
	// Fixed: variants never change the field (a currency, a tenant ID).
	Fixed bool
	// Enum: variants pick other members (the base value is one of them).
	Enum []any
	// Int: variants pick other whole numbers in [Min, Max].
	Int *Range
	// Number: variants pick other numbers in [Min, Max].
	Number *Range
	// MaxLen: a string variant stays within this many characters; the
	// base is cut to make room for the suffix.
	MaxLen int
	// Required: the service refuses a payload without the field; a
	// refused call leaves it out (see Breakages). Left out of JSON when
	// false, so that rules without it keep the contract's digest.
	Required bool `json:",omitempty"`
}

// Range is an inclusive numeric range.
type Range struct {
	Min float64 `yaml:"min" json:"min"`
	Max float64 `yaml:"max" json:"max"`
}
