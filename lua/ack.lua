-- ack: settle jobs that succeeded: remove each from this consumer's in-flight set and, only
-- if it was there, delete its record and its recorded failure.
--
-- KEYS[1]  NAME:inflight:<uuid>  set
-- KEYS[2]  NAME:data             hash
-- KEYS[3]  NAME:failures         hash
-- KEYS[4]  NAME:stats            hash  qctl's counters: "completed" grows by the acked count
-- ARGV     id1, id2, ...  (at most 1000)
--
-- Returns  an array with one integer per id: 1 if acked, 0 if it was not in the set (the
--          reservation was lost; nothing changed for that id).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key; BADVALUE when "completed" is not an integer.
local err = permit{'SMISMEMBER', 1, 'SREM', 1, 'HDEL', 2, 'HDEL', 3, 'HINCRBY', 4}
  or check(KEYS[1], 'set') or check(KEYS[2], 'hash') or check(KEYS[3], 'hash')
  or check(KEYS[4], 'hash')
if err then return err end

local flags = redis.call('SMISMEMBER', KEYS[1], unpack(ARGV))
local acked = {}
for i = 1, #ARGV do
  if flags[i] == 1 then acked[#acked + 1] = ARGV[i] end
end
if #acked > 0 then
  err = counter(KEYS[4], 'completed', #acked)
  if err then return err end
  redis.call('SREM', KEYS[1], unpack(acked))
  redis.call('HDEL', KEYS[2], unpack(acked))
  redis.call('HDEL', KEYS[3], unpack(acked))
  redis.call('HINCRBY', KEYS[4], 'completed', #acked)
end
return flags
