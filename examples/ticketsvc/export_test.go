package ticketsvc

// ProcessMutexWaiters returns how many calls of s wait for an action's
// process mutex (0 outside the process-mutex mode), so that a test can
// know a call is parked there, where the database cannot see it.
func ProcessMutexWaiters(s *Service) int {
	if s.mutex == nil {
		return 0
	}
	return s.mutex.waiters()
}
