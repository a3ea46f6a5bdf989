package reference

// Names the external tests use that are not part of the package's API.

type Reading = reading
