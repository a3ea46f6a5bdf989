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
