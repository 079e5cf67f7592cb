-- kill: settle a job that may not run again (out of retries, or its record is damaged):
-- remove it from this consumer's in-flight set and, only if it was there, add it to
-- NAME:dead, replace its record (unless ARGV[3] is empty: a damaged record is kept as it is
-- for inspection), record why, and count it (with its run time, when it ran) in qctl's
-- counters and history.
--
-- KEYS[1]  NAME:inflight:<uuid>  set
-- KEYS[2]  NAME:dead             zset
-- KEYS[3]  NAME:data             hash
-- KEYS[4]  NAME:failures         hash
-- KEYS[5]  NAME:stats            hash  qctl's counters: "failed" and "killed" grow by 1,
--                                      "run_ms" and the run's bucket by its run
-- KEYS[6]  NAME:history:<minute> hash  the same counters for this minute
-- ARGV[1]  id
-- ARGV[2]  time of death (unix seconds)
-- ARGV[3]  the new record (Attempt + 1), or "" to keep the stored one
-- ARGV[4]  the failure (JSON)
-- ARGV[5]  how long the minute is kept after this write (milliseconds)
-- ARGV[6]  the run-time bucket field of the run ("ms:<bound>"), or "" when it did not run
-- ARGV[7]  the run time (whole milliseconds)
--
-- Returns  1 if killed, 0 if the id was not in the set (nothing changed).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; BADVALUE when "failed" is not an integer. The history
--          and the other counters are kept as well as they can be (see ack.lua).
local err = permit{'SISMEMBER', 1, 'SREM', 1, 'ZADD', 2, 'HSET', 3, 'HSET', 4, 'HINCRBY', 5,
  'HINCRBY', 6, 'PEXPIRE', 6}
  or check(KEYS[1], 'set') or check(KEYS[2], 'zset') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash') or check(KEYS[5], 'hash')
if err then return err end

if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
err = counter(KEYS[5], 'failed', 1)
if err then return err end
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
redis.call('HINCRBY', KEYS[5], 'failed', 1)
pcall(redis.call, 'HINCRBY', KEYS[5], 'killed', 1)
pcall(redis.call, 'HINCRBY', KEYS[6], 'failed', 1)
pcall(redis.call, 'HINCRBY', KEYS[6], 'killed', 1)
if ARGV[6] ~= '' then
  pcall(redis.call, 'HINCRBY', KEYS[5], ARGV[6], 1)
  pcall(redis.call, 'HINCRBY', KEYS[5], 'run_ms', ARGV[7])
  pcall(redis.call, 'HINCRBY', KEYS[6], ARGV[6], 1)
  pcall(redis.call, 'HINCRBY', KEYS[6], 'run_ms', ARGV[7])
end
pcall(redis.call, 'PEXPIRE', KEYS[6], ARGV[5])
return 1
