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
-- ARGV     then n ids; then the run time of them all (whole milliseconds), m, and m pairs
--          of a run-time bucket field ("ms:<bound>") and how many of the n runs it counts;
--          then each job's bucket (its place among the m, from 1) and run time, as one
--          string "k ms k ms ...", read only when some job was not in the set
-- Returns  an array with one integer per id: 1 if acked, 0 if it was not in the set (the
--          reservation was lost; nothing changed for that id).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; BADVALUE when "completed" is not an integer. The history
--          and the run-time counters are kept as well as they can be: a value there that is
--          no integer, or a key of the wrong type, leaves them uncounted and settles the jobs;
--          NAME:acked of the wrong type leaves the ids unnoted and settles them too.
local err = permit{'SMISMEMBER', 1, 'SREM', 1, 'HDEL', 2, 'EXISTS', 3, 'HDEL', 3,
  'HINCRBY', 4, 'HINCRBY', 5, 'PEXPIRE', 5, 'LPUSH', 6, 'LTRIM', 6}
  or check(KEYS[1], 'set') or check(KEYS[2], 'hash') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash')
if err then return err end

local n = tonumber(ARGV[3])
local ms, m = tonumber(ARGV[4 + n]) or 0, tonumber(ARGV[5 + n]) or 0
local fields, runs = {}, {}
for j = 1, m do
  fields[j], runs[j] = ARGV[4 + n + 2 * j], tonumber(ARGV[5 + n + 2 * j]) or 0
end
local flags = redis.call('SMISMEMBER', KEYS[1], unpack(ARGV, 4, 3 + n))
local acked = {}
for i = 1, n do
  if flags[i] == 1 then acked[#acked + 1] = ARGV[3 + i] end
end
if #acked < n then
  -- Some were not reserved here: their runs are not counted.
  local i = 0
  for k, t in string.gmatch(ARGV[6 + n + 2 * m] or '', '(%d+) (%d+)') do
    i = i + 1
    if flags[i] ~= 1 then
      k = tonumber(k)
      runs[k] = runs[k] - 1
      ms = ms - tonumber(t)
    end
  end
end
if #acked > 0 then
  err = counter(KEYS[4], 'completed', #acked)
  if err then return err end
  redis.call('SREM', KEYS[1], unpack(acked))
  redis.call('HDEL', KEYS[2], unpack(acked))
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('HDEL', KEYS[3], unpack(acked)) end
  redis.call('HINCRBY', KEYS[4], 'completed', #acked)
  pcall(redis.call, 'HINCRBY', KEYS[5], 'completed', #acked)
  for j = 1, m do
    if runs[j] > 0 then
      pcall(redis.call, 'HINCRBY', KEYS[4], fields[j], runs[j])
      pcall(redis.call, 'HINCRBY', KEYS[5], fields[j], runs[j])
    end
  end
  pcall(redis.call, 'HINCRBY', KEYS[4], 'run_ms', ms)
  pcall(redis.call, 'HINCRBY', KEYS[5], 'run_ms', ms)
  pcall(redis.call, 'PEXPIRE', KEYS[5], ARGV[1])
  if pcall(redis.call, 'LPUSH', KEYS[6], unpack(acked)) then
    pcall(redis.call, 'LTRIM', KEYS[6], 0, tonumber(ARGV[2]) - 1)
  end
end
return flags
