package ticketsvc

import (
	"context"
	"fmt"
	"sync"
)

// actionMutex serialises the calls of one action within one process: the
// process-mutex mode's stand-in for the database's advisory lock, and its
// mistake, since another process (or another Service over the same
// database) has a mutex of its own. An action's entry lives only while some
// call holds or waits for it, so the map does not grow with the keys seen.
type actionMutex struct {
	mu      sync.Mutex
	actions map[action]*actionLock
}

// action is the mutex's key: a tenant and an idempotency key.
type action struct{ tenant, key string }

type actionLock struct {
	// held has room for one: a call holds the lock while its token is in.
	held chan struct{}
	// refs counts the calls holding or waiting for the lock.
	refs int
}

func newActionMutex() *actionMutex {
	return &actionMutex{actions: map[action]*actionLock{}}
}

// lock waits until the call holds the action's lock, or ctx is done. The
// returned unlock must be called exactly once.
func (m *actionMutex) lock(ctx context.Context, a action) (unlock func(), err error) {
	m.mu.Lock()
	l := m.actions[a]
	if l == nil {
		l = &actionLock{held: make(chan struct{}, 1)}
		m.actions[a] = l
	}
	l.refs++
	m.mu.Unlock()
	select {
	case l.held <- struct{}{}:
		return func() {
			<-l.held
			m.release(a, l)
		}, nil
	case <-ctx.Done():
		m.release(a, l)
		return nil, fmt.Errorf("wait for the process mutex of the action: %w", ctx.Err())
	}
}

func (m *actionMutex) release(a action, l *actionLock) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l.refs--
	if l.refs == 0 {
		delete(m.actions, a)
	}
}

// waiters returns how many calls are waiting for (not holding) a lock.
func (m *actionMutex) waiters() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, l := range m.actions {
		n += l.refs - len(l.held)
	}
	return n
}
