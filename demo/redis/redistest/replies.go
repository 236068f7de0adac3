package redistest

// Scripts run with KEYS = {"k"} and ARGV = {"v"}, k holding "v", and the
// reply Redis 7.0 gives each, as redis-cli prints it: the sandbox's tests
// hold the sandbox to them, with a keyspace of plain strings, and the
// conformance suite holds real Redis to them.

// Reply is a script and its reply.
type Reply struct{ Script, Want string }

// Replies are scripts that answer without an error from Lua.
var Replies = []Reply{
	{`if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end`, "(integer) 1"},
	{`return redis.call('get', 'nokey')`, "(nil)"},
	{`return type(redis.call('get', 'nokey'))`, `"boolean"`},
	{`return 3.9`, "(integer) 3"},
	{`return -3.9`, "(integer) -3"},
	{`return true`, "(integer) 1"},
	{`return false`, "(nil)"},
	{`return nil`, "(nil)"},
	{`return 'abc'`, `"abc"`},
	{`return {1, 'two', {3}, nil, 5}`, `1) (integer) 1 2) "two" 3) 1) (integer) 3`},
	{`return {}`, "(empty array)"},
	{`return {err = 'my bad'}`, "(error) my bad"},
	{`return {err = 1}`, "(empty array)"},
	{`return {ok = 'FINE'}`, "FINE"},
	{`return {ok = 'A\r\nB'}`, "A  B"},
	{`return redis.status_reply('FINE')`, "FINE"},
	{`return redis.error_reply('E2 bad')`, "(error) E2 bad"},
	{`return redis.error_reply('bad')`, "(error) ERR bad"},
	{`return redis.call('set', KEYS[1], 'x')`, "OK"},
	{`return type(redis.call('set', KEYS[1], 'x'))`, `"table"`},
	{`return redis.pcall('incr', KEYS[1])`, "(error) ERR value is not an integer or out of range"},
	{`return redis.pcall('nosuch')['err']`, `"ERR Unknown Redis command called from script"`},
	{`return redis.sha1hex('')`, `"da39a3ee5e6b4b0d3255bfef95601890afd80709"`},
	{`return #KEYS + #ARGV`, "(integer) 2"},
	{`return ('abc'):upper() .. 1 .. 0.1 + 0.2`, `"ABC10.3"`},
	{`return tostring(1e15) .. ' ' .. tostring(2^53) .. ' ' .. 10/3`, `"1e+15 9.007199254741e+15 3.3333333333333"`},
	{`return string.format('%5.2f|%d|%-3s|%q|%x|%5.1s', 3.14159, 42.9, 'a', 'a"b\n', 255, 'xyz')`, `" 3.14|42|a  |\"a\\\"b\\\n\"|ff|    x"`},
}

// Failure is a script that raises an error, the error reply (%s stands for
// the script's SHA1) and the line it leaves the script from.
type Failure struct {
	Script, Want string
	Line         int
}

// Errors are scripts whose errors Redis 7.0 words as Want.
var Errors = []Failure{
	{"local a = 1\nx = 1", "ERR user_script:2: Attempt to modify a readonly table script: %s, on @user_script:2.", 2},
	{"return y", "ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: %s, on @user_script:1.", 1},
	{"local function f()\n  error('boom')\nend\nf()", "ERR user_script:2: boom script: %s, on @user_script:2.", 2},
	{"error('boom', 0)", "ERR boom script: %s, on @user_script:1.", 1},
	{"\n\nreturn redis.call('nosuch')", "ERR Unknown Redis command called from script script: %s, on @user_script:3.", 3},
	{"return redis.call('incr', KEYS[1])", "ERR value is not an integer or out of range script: %s, on @user_script:1.", 1},
	{"return redis.call()", "ERR Please specify at least one argument for this redis lib call script: %s, on @user_script:1.", 1},
	{"return redis.call('get', {})", "ERR Lua redis lib command arguments must be strings or integers script: %s, on @user_script:1.", 1},
	{"string.rep = nil", "ERR user_script:1: Attempt to modify a readonly table script: %s, on @user_script:1.", 1},
	{"error({err = 'E3 mine'})", "E3 mine script: %s, on @user_script:1.", 1},
}
