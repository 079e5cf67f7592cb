-- promote: move due jobs from NAME:scheduled to the tail of NAME:active.
--
-- KEYS[1]  NAME:scheduled  zset  id -> due time
-- KEYS[2]  NAME:active     list
-- KEYS[3]  NAME:signal     list
-- ARGV[1]  now (unix seconds); every score <= now is due, zero and negative ones included
-- ARGV[2]  how many at most (at most 1000)
--
-- Returns  how many jobs were moved. Removes exactly the members it read (by name, not by
--          rank), so a concurrent change to the set cannot make it drop or double a job.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{'ZRANGEBYSCORE', 1, 'ZREM', 1, 'RPUSH', 2, 'DEL', 3, 'LPUSH', 3}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list')
if err then return err end

local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #ids == 0 then return 0 end
redis.call('ZREM', KEYS[1], unpack(ids))
redis.call('RPUSH', KEYS[2], unpack(ids))
redis.call('DEL', KEYS[3])
redis.call('LPUSH', KEYS[3], 1)
return #ids
