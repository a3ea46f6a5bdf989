package pgproxy

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// entry is a message of the client's the server has still to answer.
type entry struct {
	kind     byte // the client message's type: 'Q', 'P', 'B', 'D', 'E', 'C', 'S'
	injected bool // sent by the proxy: its answer is not the client's
	stmt     *statement
}

// statement is a Query or an Execute on its way, with what the relay needs
// to say it was answered.
type statement struct {
	call     *Call
	index    int
	tx       int
	sql      string
	commit   bool
	answered bool
	tag      string
	// raised is the SQLSTATE the server was made to raise in the
	// statement's place, at the point raisedAt: its ErrorResponse with
	// that code is the injection delivered.
	raised   string
	raisedAt Kind
}

// handle decides and forwards one of the client's frames, or answers it
// in its place.
func (s *session) handle(f frame) error {
	switch f.kind() {
	case 'Q':
		var m pgproto3.Query
		if err := m.Decode(f.body()); err != nil {
			return err
		}
		return s.statement(f, m.String, nil, true)
	case 'P':
		var m pgproto3.Parse
		if err := m.Decode(f.body()); err != nil {
			return err
		}
		s.mu.Lock()
		s.stmts[m.Name] = m.Query
		s.mu.Unlock()
	case 'B':
		var m pgproto3.Bind
		if err := m.Decode(f.body()); err != nil {
			return err
		}
		s.mu.Lock()
		s.portals[m.DestinationPortal] = portal{sql: s.stmts[m.PreparedStatement], params: m.Parameters}
		s.mu.Unlock()
	case 'E':
		var m pgproto3.Execute
		if err := m.Decode(f.body()); err != nil {
			return err
		}
		s.mu.Lock()
		pr := s.portals[m.Portal]
		s.mu.Unlock()
		return s.statement(f, pr.sql, pr.params, false)
	case 'C':
		var m pgproto3.Close
		if err := m.Decode(f.body()); err == nil && m.ObjectType == 'S' {
			s.mu.Lock()
			delete(s.stmts, m.Name)
			s.mu.Unlock()
		}
	}
	switch f.kind() {
	case 'P', 'B', 'D', 'C', 'S':
		s.push(entry{kind: f.kind()})
	}
	err := s.writeServer(f)
	if f.kind() == 'X' {
		return wireproxy.ErrEnded
	}
	return err
}

func (s *session) push(es ...entry) {
	s.mu.Lock()
	s.pending = append(s.pending, es...)
	s.mu.Unlock()
}

// statement ties, reports and decides a Query or an Execute before it is
// forwarded (or answered in its place).
func (s *session) statement(f frame, sql string, params [][]byte, simple bool) error {
	st := &statement{sql: sql, commit: isCommit(sql)}
	s.mu.Lock()
	newTx := s.call == nil
	if newTx {
		s.call = s.p.match(sql, params)
	}
	st.call = s.call
	s.mu.Unlock()
	kind := f.kind()
	var between bool
	if st.call != nil {
		st.index, st.tx, between = st.call.begin(newTx)
	}
	ev := StatementBegins
	if st.commit {
		ev = CommitBegins
	}
	s.emit(Event{Kind: ev, Call: name(st.call), SQL: sql, Params: params})

	if st.call != nil {
		pt := Point{Index: st.index, Tx: st.tx, SQL: sql}
		kinds := []Kind{BeforeStatement}
		if st.commit {
			kinds[0] = BeforeCommit
		}
		if between {
			kinds = append([]Kind{BetweenTransactions}, kinds...)
		}
		for _, pt.Kind = range kinds {
			if done, err := s.act(st, pt, simple, s.p.consult(st.call, pt)); done {
				return err
			}
		}
	}
	s.push(entry{kind: kind, stmt: st})
	return s.writeServer(f)
}

// act carries out the hook's answer before a statement; done: the
// statement was answered in its place or the session is over.
func (s *session) act(st *statement, pt Point, simple bool, a Action) (done bool, err error) {
	switch a.kind {
	case actHold:
		if err := s.Hold(a.release); err != nil {
			return true, err
		}
	case actCut:
		st.call.inject(Injection{Kind: pt.Kind, Index: pt.Index})
		return true, s.die("")
	case actError:
		if fatal(a.code) || lost(a.code) {
			st.call.inject(Injection{Kind: pt.Kind, Index: pt.Index, Code: a.code})
			return true, s.die(a.code)
		}
		st.raised, st.raisedAt = a.code, pt.Kind
		return true, s.raise(st, a.code, simple)
	}
	return false, nil
}

// raise has the server fail in place of the statement: a Query becomes a
// Query of raiseSQL; an Execute becomes Parse, Bind and Execute of it on
// the unnamed statement and portal, whose ParseComplete and BindComplete
// the relay drops. If an earlier message of the client's pipeline failed,
// the server skips these up to the client's Sync, as it would have
// skipped the Execute.
func (s *session) raise(st *statement, code string, simple bool) error {
	if simple {
		f, err := encode(&pgproto3.Query{String: raiseSQL(code)})
		if err != nil {
			return err
		}
		s.push(entry{kind: 'Q', stmt: st})
		return s.writeServer(f)
	}
	f, err := encode(
		&pgproto3.Parse{Query: raiseSQL(code)},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
	)
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.stmts, "")
	s.mu.Unlock()
	s.push(entry{kind: 'P', injected: true}, entry{kind: 'B', injected: true}, entry{kind: 'E', stmt: st})
	return s.writeServer(f)
}

func name(c *Call) string {
	if c == nil {
		return ""
	}
	return c.Name()
}
