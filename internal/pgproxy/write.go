package pgproxy

import (
	"regexp"
	"strings"
)

// Writes reports whether a statement writes or locks rows: INSERT,
// UPDATE, DELETE, MERGE, COPY ... FROM, a WITH whose parts do one of
// these, or a SELECT ... FOR UPDATE / FOR SHARE. It is where a statement
// barrier holds a call (every call has done its reads before any writes)
// and where db-error answers by default. A write hidden in a function
// (SELECT create_ticket($1)) is not seen.
func Writes(sql string) bool {
	s := strings.ToLower(stripComments(sql))
	f := strings.Fields(strings.TrimLeft(s, "( \t\r\n"))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "insert", "update", "delete", "merge":
		return true
	case "copy":
		return copyFrom.MatchString(s)
	case "with":
		return modifying.MatchString(s) || locking.MatchString(s)
	case "select", "table":
		return locking.MatchString(s)
	}
	return false
}

var (
	copyFrom  = regexp.MustCompile(`\bfrom\b`)
	modifying = regexp.MustCompile(`\b(insert|update|delete|merge)\b`)
	locking   = regexp.MustCompile(`\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b`)
)

// stripComments removes -- and /* */ comments and the contents of string
// literals (a literal "for update" is not a lock).
func stripComments(sql string) string {
	var b strings.Builder
	for i := 0; i < len(sql); i++ {
		switch {
		case strings.HasPrefix(sql[i:], "--"):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
		case sql[i] == '\'':
			for i++; i < len(sql) && sql[i] != '\''; i++ {
			}
			b.WriteString("''")
		default:
			b.WriteByte(sql[i])
		}
	}
	return b.String()
}
