-- deregister: a consumer that stops cleanly leaves NAME:consumers, but only when it holds no
-- reservations any more (otherwise it stays, for orphan recovery to find). Leaving, it takes
-- its description and its list of running jobs with it.
--
-- KEYS[1]  NAME:consumers                 zset
-- KEYS[2]  NAME:inflight:<uuid>           set
-- KEYS[3]  NAME:consumer:<uuid>           hash (qctl's own)
-- KEYS[4]  NAME:consumer:<uuid>:running   hash (qctl's own)
-- ARGV     none
--
-- Returns  1 if removed, 0 if reservations remain.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE when NAME:consumers is not a zset. An in-flight key of another type is
--          left as it is (Redis deletes an empty set itself).
local err = permit{'TYPE', 2, 'SCARD', 2, 'ZREM', 1, 'DEL', 3, 'DEL', 4}
  or check(KEYS[1], 'zset')
if err then return err end
local t = redis.call('TYPE', KEYS[2])['ok']
if t == 'set' and redis.call('SCARD', KEYS[2]) > 0 then return 0 end
redis.call('ZREM', KEYS[1], KEYS[2])
redis.call('DEL', KEYS[3])
redis.call('DEL', KEYS[4])
return 1
