package checks

var FieldsAgainst = fieldsAgainst
