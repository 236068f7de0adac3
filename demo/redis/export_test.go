package redis

// What the outside tests (package redis_test) may see of the inside.

// LockValue is the "random" value client's attempt stores in a lock key.
var LockValue = lockValue

// RedissonField is the hash field a Redisson client writes in a lock.
var RedissonField = redissonField

// RequestID is the id of a client's nth unlock call.
var RequestID = requestID

// SearchBudget sets what a run's scripts may run in all, for stores made
// after it, and returns the function that puts it back.
func SearchBudget(n int64) (restore func()) {
	old := searchInstructions
	searchInstructions = n
	return func() { searchInstructions = old }
}
