package model

// Names the external tests use that are not part of the package's API.

const ShownBody = shownBody
