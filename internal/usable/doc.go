// Package usable tells whether a run's request is usable at all: the
// clues its answers leave (a value fed by histories, Clues), the problem
// they show at the run's end (no ID where the contract says, no usable
// answer, a generated input refused), and the probes that ask the service
// which field it refuses, so that the contract error names the setting
// to fix instead of blaming the service.
package usable
