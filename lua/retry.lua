-- retry: settle a failed job that has retries left: remove it from this consumer's in-flight
-- set and, only if it was there, schedule it for its retry time with the new record
-- (Attempt + 1), record why it failed, add the retry to NAME:events for `qctl tail`, and
-- count it with its run time in qctl's counters and history.
--
-- KEYS[1]  NAME:inflight:<uuid>  set
-- KEYS[2]  NAME:scheduled        zset
-- KEYS[3]  NAME:data             hash
-- KEYS[4]  NAME:failures         hash
-- KEYS[5]  NAME:stats            hash  qctl's counters: "failed" and "retried" grow by 1,
--                                      "run_ms" and the run's bucket by its run
-- KEYS[6]  NAME:events           stream  qctl's events, trimmed to about ARGV[5] entries
-- KEYS[7]  NAME:history:<minute> hash  the same counters for this minute
-- ARGV[1]  id
-- ARGV[2]  retry time (unix seconds)
-- ARGV[3]  the new record
-- ARGV[4]  the failure (JSON)
-- ARGV[5]  about how many entries NAME:events keeps
-- ARGV[6]  how long the minute is kept after this write (milliseconds)
-- ARGV[7]  the run-time bucket field of the run ("ms:<bound>")
-- ARGV[8]  the run time (whole milliseconds)
--
-- Returns  1 if retried, 0 if the id was not in the set (nothing changed).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; BADVALUE when "failed" is not an integer. The history
--          and the other counters are kept as well as they can be (see ack.lua).
local err = permit{
  'SISMEMBER', 1, 'SREM', 1, 'ZADD', 2, 'HSET', 3, 'HSET', 4, 'HINCRBY', 5, 'XADD', 6,
  'HINCRBY', 7, 'PEXPIRE', 7}
  or check(KEYS[1], 'set') or check(KEYS[2], 'zset') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash') or check(KEYS[5], 'hash') or check(KEYS[6], 'stream')
if err then return err end

if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
err = counter(KEYS[5], 'failed', 1)
if err then return err end
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
redis.call('HINCRBY', KEYS[5], 'failed', 1)
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[5], '*', 'event', 'retry', 'id', ARGV[1],
  'due', ARGV[2], 'failure', ARGV[4])
pcall(redis.call, 'HINCRBY', KEYS[5], 'retried', 1)
pcall(redis.call, 'HINCRBY', KEYS[5], ARGV[7], 1)
pcall(redis.call, 'HINCRBY', KEYS[5], 'run_ms', ARGV[8])
pcall(redis.call, 'HINCRBY', KEYS[7], 'failed', 1)
pcall(redis.call, 'HINCRBY', KEYS[7], 'retried', 1)
pcall(redis.call, 'HINCRBY', KEYS[7], ARGV[7], 1)
pcall(redis.call, 'HINCRBY', KEYS[7], 'run_ms', ARGV[8])
pcall(redis.call, 'PEXPIRE', KEYS[7], ARGV[6])
return 1
