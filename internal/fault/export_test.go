package fault

// ErrorAtStatement is db-error through the database proxy, for a call
// already tied at it.
var ErrorAtStatement = errorAtStatement
