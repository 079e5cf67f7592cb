-- run_now: move scheduled jobs to the tail of NAME:active now, records unchanged, and wake
-- consumers.
--
-- KEYS[1]  NAME:scheduled  zset
-- KEYS[2]  NAME:active     list
-- KEYS[3]  NAME:signal     list
-- ARGV     id1, id2, ...  (at most 1000)
--
-- Returns  an array with one integer per id: 1 moved, 0 not in the scheduled set.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{'ZREM', 1, 'RPUSH', 2, 'DEL', 3, 'LPUSH', 3}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list')
if err then return err end

local out, moved = {}, {}
for i = 1, #ARGV do
  out[i] = redis.call('ZREM', KEYS[1], ARGV[i])
  if out[i] == 1 then moved[#moved + 1] = ARGV[i] end
end
if #moved > 0 then
  redis.call('RPUSH', KEYS[2], unpack(moved))
  redis.call('DEL', KEYS[3])
  redis.call('LPUSH', KEYS[3], 1)
end
return out
