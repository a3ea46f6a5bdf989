package pgtemp

// Names the external tests use that are not part of the package's API.

const BinDirEnv = binDirEnv

var RemoveStale = removeStale

var TempBase = tempBase
