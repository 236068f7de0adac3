package redis

// What the outside tests (package redis_test) may see of the inside.

// LockValue is the "random" value client's attempt stores in a lock key.
var LockValue = lockValue

// RedissonField is the hash field a Redisson client writes in a lock.
var RedissonField = redissonField

// RequestID is the id of a client's nth unlock call.
var RequestID = requestID
