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
	s := strings.ToLower(stripLiterals(sql))
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

// WritesTo reports whether a statement writes to table (as a contract
// names it: "tickets", "billing.invoices", exact case): an INSERT INTO,
// UPDATE, DELETE FROM, MERGE INTO or COPY naming it, alone or in a WITH.
// An unqualified name matches whatever schema qualifies it in the
// statement; an unquoted identifier is compared in lower case, as
// PostgreSQL folds it.
func WritesTo(sql, table string) bool {
	want := strings.Split(table, ".")
	for _, m := range target.FindAllStringSubmatch(stripLiterals(sql), -1) {
		got := identParts(m[1])
		if len(got) < len(want) {
			continue
		}
		got = got[len(got)-len(want):]
		same := true
		for i := range want {
			same = same && got[i] == want[i]
		}
		if same {
			return true
		}
	}
	return false
}

// ident is an identifier, quoted or not, possibly qualified.
const ident = `(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`

var identRE = regexp.MustCompile(ident)

var target = regexp.MustCompile(`(?i)\b(?:insert\s+into|update|delete\s+from|merge\s+into|copy)\s+(?:only\s+)?(` + ident + `(?:\s*\.\s*` + ident + `)*)`)

// identParts splits a qualified identifier, unquoting quoted parts and
// folding unquoted ones to lower case.
func identParts(s string) []string {
	var parts []string
	for _, m := range identRE.FindAllString(s, -1) {
		if strings.HasPrefix(m, `"`) {
			parts = append(parts, strings.ReplaceAll(m[1:len(m)-1], `""`, `"`))
		} else {
			parts = append(parts, strings.ToLower(m))
		}
	}
	return parts
}

var (
	copyFrom  = regexp.MustCompile(`\bfrom\b`)
	modifying = regexp.MustCompile(`\b(insert|update|delete|merge)\b`)
	locking   = regexp.MustCompile(`\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b`)
)

// stripLiterals removes -- and /* */ comments and the contents of string
// literals (a literal "for update" is not a lock).
func stripLiterals(sql string) string {
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
