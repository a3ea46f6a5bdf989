package pgproxy

import (
	"bufio"

	"github.com/jackc/pgx/v5/pgproto3"
)

// relay forwards the server's frames to the client, matching each answer
// to the client message it answers, until the session ends.
func (s *session) relay() {
	r := bufio.NewReader(s.server)
	for {
		f, err := readFrame(r)
		if err != nil {
			return
		}
		keep, err := s.reply(f)
		if err != nil {
			return
		}
		if keep {
			if err := s.WriteClient(f); err != nil {
				return
			}
		}
	}
}

// reply follows one server frame: which pending message it answers,
// whether the client is to see it, and the points it passes.
func (s *session) reply(f frame) (keep bool, err error) {
	switch f.kind() {
	case '1', '2', '3': // ParseComplete, BindComplete, CloseComplete
		e, _ := s.pop()
		return !e.injected, nil
	case 'T', 'n': // RowDescription, NoData: the end of a Describe's answer
		if e, ok := s.front(); ok && e.kind == 'D' {
			s.pop()
		}
		return true, nil
	case 'C', 'I', 's': // CommandComplete, EmptyQueryResponse, PortalSuspended
		return true, s.completed(f)
	case 'E':
		return true, s.failed(f)
	case 'Z':
		return true, s.ready(f)
	}
	return true, nil
}

func (s *session) completed(f frame) error {
	var tag string
	if f.kind() == 'C' {
		var m pgproto3.CommandComplete
		if err := m.Decode(f.body()); err == nil {
			tag = string(m.CommandTag)
		}
	}
	e, ok := s.front()
	switch {
	case ok && e.kind == 'E':
		s.pop()
		e.stmt.tag = tag
		return s.answer(e.stmt, "")
	case ok && e.kind == 'Q':
		e.stmt.tag = tag // a Query is answered at its ReadyForQuery
	}
	return nil
}

// failed: an ErrorResponse answers the message in front; in the extended
// protocol the server then skips everything up to the client's Sync.
func (s *session) failed(f frame) error {
	var m pgproto3.ErrorResponse
	_ = m.Decode(f.body())
	e, ok := s.front()
	if !ok {
		return nil // before the first query: authentication failed
	}
	if e.kind == 'Q' {
		return s.answer(e.stmt, m.Code)
	}
	s.pop()
	s.mu.Lock()
	for len(s.pending) > 0 && s.pending[0].kind != 'S' {
		s.pending = s.pending[1:]
	}
	s.mu.Unlock()
	if e.kind == 'E' {
		return s.answer(e.stmt, m.Code)
	}
	return nil
}

// ready: ReadyForQuery ends a Sync's or a Query's answer and says the
// transaction's status; back to idle ('I') the tie ends.
func (s *session) ready(f frame) error {
	if e, ok := s.pop(); ok && e.kind == 'Q' {
		if err := s.answer(e.stmt, ""); err != nil {
			return err
		}
	}
	var m pgproto3.ReadyForQuery
	if err := m.Decode(f.body()); err != nil || m.TxStatus != 'I' {
		return nil
	}
	s.mu.Lock()
	c := s.call
	s.call = nil
	s.mu.Unlock()
	if c != nil {
		c.endTx()
		s.emit(Event{Kind: TransactionEnds, Call: c.Name(), Status: m.TxStatus})
	}
	return nil
}

// answer reports a statement's answer (once) and, for a tied one,
// consults the hook before the client sees it.
func (s *session) answer(st *statement, code string) error {
	if st == nil || st.answered {
		return nil
	}
	st.answered = true
	ev, kind := StatementAnswered, AfterStatement
	if st.commit {
		ev, kind = CommitAnswered, AfterCommit
	}
	s.emit(Event{Kind: ev, Call: name(st.call), SQL: st.sql, Tag: st.tag, Code: code})
	if st.call == nil {
		return nil
	}
	if st.raised != "" && code == st.raised {
		st.call.inject(Injection{Kind: st.raisedAt, Index: st.index, Code: code})
	}
	act := s.p.consult(st.call, Point{Kind: kind, Index: st.index, Tx: st.tx, SQL: st.sql})
	switch act.kind {
	case actHold:
		return s.Hold(act.release)
	case actCut:
		st.call.inject(Injection{Kind: kind, Index: st.index})
		return s.die("")
	case actError:
		st.call.inject(Injection{Kind: kind, Index: st.index, Code: act.code})
		return s.die(act.code)
	}
	return nil
}

func (s *session) front() (entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return entry{}, false
	}
	return s.pending[0], true
}

func (s *session) pop() (entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return entry{}, false
	}
	e := s.pending[0]
	s.pending = s.pending[1:]
	return e, true
}
