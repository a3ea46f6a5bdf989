package effects

var FieldsAgainst = fieldsAgainst
