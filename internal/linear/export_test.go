package linear

// LinModel is the reference model as porcupine sees it, for the tests that
// draw porcupine's timeline of a history and read its descriptions.
var LinModel = linModel
