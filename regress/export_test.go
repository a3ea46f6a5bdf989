package regress

// Names the external tests use that are not part of the package's API.

const Attempts = attempts
const RacyAttempts = racyAttempts
const TimedAttempts = timedAttempts

var Decode = decode
var Read = read
