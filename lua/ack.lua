-- ack: settle jobs that succeeded: remove each from this consumer's in-flight set and, only
-- if it was there, delete its record and its recorded failure, count it with its run time in
-- qctl's counters and history, and note its id among the newest acked ids (`qctl wait`
-- tells by them a job that succeeded from one that was deleted).
--
-- KEYS[1]  NAME:inflight:<uuid>     set
-- KEYS[2]  NAME:data                hash
-- KEYS[3]  NAME:failures            hash
-- KEYS[4]  NAME:stats               hash  qctl's counters: "completed" grows by the acked count,
--                                         "run_ms" and the run-time buckets by their runs
-- KEYS[5]  NAME:history:<minute>    hash  the same for this minute
-- KEYS[6]  NAME:acked               list  the ids acked, newest at the head
-- ARGV[1]  how long the minute is kept after this write (milliseconds)
-- ARGV[2]  how many ids NAME:acked keeps (the newest)
-- ARGV[3]  n, the number of jobs (at most 1000)
-- ARGV     then n ids, then the run-time bucket field of each ("ms:<bound>"), then the run
--          time of each (whole milliseconds)
--
-- Returns  an array with one integer per id: 1 if acked, 0 if it was not in the set (the
--          reservation was lost; nothing changed for that id).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; BADVALUE when "completed" is not an integer. The history
--          and the run-time counters are kept as well as they can be: a value there that is
--          no integer, or a key of the wrong type, leaves them uncounted and settles the jobs;
--          NAME:acked of the wrong type leaves the ids unnoted and settles them too.
local err = permit{'SMISMEMBER', 1, 'SREM', 1, 'HDEL', 2, 'HDEL', 3, 'HINCRBY', 4,
  'HINCRBY', 5, 'PEXPIRE', 5, 'LPUSH', 6, 'LTRIM', 6}
  or check(KEYS[1], 'set') or check(KEYS[2], 'hash') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash')
if err then return err end

local n = tonumber(ARGV[3])
local ids = {}
for i = 1, n do ids[i] = ARGV[3 + i] end
local flags = redis.call('SMISMEMBER', KEYS[1], unpack(ids))
local acked, runs, ms = {}, {}, 0
for i = 1, n do
  if flags[i] == 1 then
    acked[#acked + 1] = ids[i]
    local bucket = ARGV[3 + n + i]
    runs[bucket] = (runs[bucket] or 0) + 1
    ms = ms + (tonumber(ARGV[3 + 2 * n + i]) or 0)
  end
end
if #acked > 0 then
  err = counter(KEYS[4], 'completed', #acked)
  if err then return err end
  redis.call('SREM', KEYS[1], unpack(acked))
  redis.call('HDEL', KEYS[2], unpack(acked))
  redis.call('HDEL', KEYS[3], unpack(acked))
  redis.call('HINCRBY', KEYS[4], 'completed', #acked)
  pcall(redis.call, 'HINCRBY', KEYS[5], 'completed', #acked)
  for bucket, count in pairs(runs) do
    pcall(redis.call, 'HINCRBY', KEYS[4], bucket, count)
    pcall(redis.call, 'HINCRBY', KEYS[5], bucket, count)
  end
  pcall(redis.call, 'HINCRBY', KEYS[4], 'run_ms', ms)
  pcall(redis.call, 'HINCRBY', KEYS[5], 'run_ms', ms)
  pcall(redis.call, 'PEXPIRE', KEYS[5], ARGV[1])
  if pcall(redis.call, 'LPUSH', KEYS[6], unpack(acked)) then
    pcall(redis.call, 'LTRIM', KEYS[6], 0, tonumber(ARGV[2]) - 1)
  end
end
return flags
