package respproxy

import (
	"bufio"
	"strings"
	"testing"
)

// Each RESP2 and RESP3 value is read whole, and nothing of the next.
func TestReadReply(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		push, err bool
	}{
		{"simple", "+OK\r\n", false, false},
		{"error", "-ERR wrong\r\n", false, true},
		{"integer", ":42\r\n", false, false},
		{"bulk", "$5\r\nhello\r\n", false, false},
		{"bulk with CRLF inside", "$4\r\na\r\nb\r\n", false, false},
		{"null bulk", "$-1\r\n", false, false},
		{"null array", "*-1\r\n", false, false},
		{"nested array", "*2\r\n*1\r\n:1\r\n$1\r\nx\r\n", false, false},
		{"null", "_\r\n", false, false},
		{"double", ",3.14\r\n", false, false},
		{"boolean", "#t\r\n", false, false},
		{"big number", "(3492890328409238509324850943850943825024385\r\n", false, false},
		{"blob error", "!21\r\nSYNTAX invalid syntax\r\n", false, true},
		{"verbatim", "=15\r\ntxt:Some string\r\n", false, false},
		{"map", "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", false, false},
		{"set", "~2\r\n+a\r\n+b\r\n", false, false},
		{"push", ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n", true, false},
		{"attribute, then its reply", "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*1\r\n:2\r\n", false, false},
		{"streamed string", "$?\r\n;4\r\nHell\r\n;1\r\no\r\n;0\r\n", false, false},
		{"streamed aggregate", "*?\r\n:1\r\n:2\r\n.\r\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(tc.in + "+NEXT\r\n"))
			rep, err := readReply(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(rep.raw) != tc.in || rep.push != tc.push || rep.err != tc.err {
				t.Errorf("read %q push %v err %v, want %q push %v err %v", rep.raw, rep.push, rep.err, tc.in, tc.push, tc.err)
			}
			if next, err := readReply(r); err != nil || string(next.raw) != "+NEXT\r\n" {
				t.Errorf("the next reply: %q, %v", next.raw, err)
			}
		})
	}
}

// What is not RESP, or is cut short, is an error, never a value.
func TestReadReplyRefuses(t *testing.T) {
	for _, in := range []string{
		"?what\r\n", "$5\r\nhel", "$x\r\n", "*2\r\n:1\r\n", "+OK\n", "$?\r\n;x\r\n",
		strings.Repeat("*1\r\n", maxDepth+2) + ":1\r\n",
	} {
		if rep, err := readReply(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("%q: read %q, want an error", in, rep.raw)
		}
	}
}

// A command is read with its arguments, binary ones included; an inline
// one is split on white space.
func TestReadCommand(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("*3\r\n$3\r\nset\r\n$4\r\nk\r\n1\r\n$0\r\n\r\n\r\nget  k1\r\n"))
	c, err := readCommand(r)
	if err != nil {
		t.Fatal(err)
	}
	if c.name() != "SET" || len(c.args) != 3 || string(c.args[1]) != "k\r\n1" || string(c.args[2]) != "" {
		t.Errorf("command %q %q", c.name(), c.args)
	}
	c, err = readCommand(r)
	if err != nil || c.name() != "GET" || len(c.args) != 2 || string(c.raw) != "get  k1\r\n" {
		t.Errorf("inline command %q %q, %v", c.name(), c.args, err)
	}
	for _, bad := range []string{"*2\r\n:1\r\n", "*1\r\n$9\r\nshort\r\n", "*x\r\n"} {
		if c, err := readCommand(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: read %q, want an error", bad, c.args)
		}
	}
}
