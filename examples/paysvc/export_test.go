package paysvc

// Names the external tests use that are not part of the package's API.

var Currencies = currencies
var OpenAPI = openAPI
