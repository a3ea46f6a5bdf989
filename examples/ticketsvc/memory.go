package ticketsvc

import "sync"

// keyMemory is the memory-keys mode's key store: a map in the process,
// which a restart empties, where the database would have kept every key.
type keyMemory struct {
	mu   sync.Mutex
	keys map[action]storedKey
}

func (m *keyMemory) find(a action) (storedKey, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.keys[a]
	return k, ok
}

func (m *keyMemory) store(a action, k storedKey) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys[a] = k
}

// errorMemory is the stores-errors mode's store of failed answers, by
// action, with the fingerprint of the payload that failed: what a
// response cache in front of the handler keeps.
type errorMemory struct {
	mu     sync.Mutex
	failed map[action]string
}

func (m *errorMemory) find(a action) (fingerprint string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fingerprint, ok = m.failed[a]
	return fingerprint, ok
}

func (m *errorMemory) store(a action, fingerprint string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failed[a] = fingerprint
}

// refusalMemory is the stores-refusals mode's store of refused answers,
// by action, and of the actions already answered ok: a refusal is saved
// only under a key not yet used (the validation failure of a first
// request, the case Stripe's documentation warns about), so the mode has
// one mistake, the corrected request refused for ever.
type refusalMemory struct {
	mu      sync.Mutex
	refused map[action]httpError
	used    map[action]bool
}

// answered marks an action answered ok.
func (m *refusalMemory) answered(a action) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used[a] = true
}

func (m *refusalMemory) find(a action) (httpError, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.refused[a]
	return e, ok
}

// store keeps the first refusal of an action not answered ok yet.
func (m *refusalMemory) store(a action, e httpError) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.refused[a]; !ok && !m.used[a] {
		m.refused[a] = e
	}
}
