-- recover: give back the reservations of one consumer whose heartbeat has expired: move up
-- to N ids from its in-flight set to the tail of NAME:active; when the set is empty, remove
-- the consumer from NAME:consumers, and its description (a qctl consumer's) with it.
--
-- KEYS[1]  NAME:consumers        zset  in-flight key -> last heartbeat
-- KEYS[2]  NAME:active           list
-- KEYS[3]  NAME:signal           list
-- KEYS[4]  NAME:inflight:<uuid>  set   the expired consumer's reservations (declared, and
--                                      checked by the caller to be of this queue's form)
-- KEYS[5]  NAME:consumer:<uuid>          hash (qctl's own) its description, if any
-- KEYS[6]  NAME:consumer:<uuid>:running  hash (qctl's own) its running jobs, if any
-- ARGV[1]  cut-off (unix seconds): only a heartbeat at or before it counts as expired
-- ARGV[2]  N, how many ids at most (at most 1000)
--
-- Returns  {moved, left}: ids moved by this call and ids still in the set; {-1, 0} when the
--          consumer is no longer expired (it heartbeat since) or not registered, {-2, 0}
--          when KEYS[4] is not a set. Nothing is changed in those two cases.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE when NAME:consumers is not a zset or NAME:active not a list.
local err = permit{
  'ZSCORE', 1, 'TYPE', 4, 'SRANDMEMBER', 4, 'SREM', 4, 'RPUSH', 2, 'DEL', 3, 'LPUSH', 3,
  'SCARD', 4, 'ZREM', 1, 'DEL', 5, 'DEL', 6}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'list')
if err then return err end
local beat = redis.call('ZSCORE', KEYS[1], KEYS[4])
if not beat or tonumber(beat) > tonumber(ARGV[1]) then return {-1, 0} end
local st = redis.call('TYPE', KEYS[4])['ok']
if st ~= 'none' and st ~= 'set' then return {-2, 0} end

local ids = redis.call('SRANDMEMBER', KEYS[4], tonumber(ARGV[2]))
if #ids > 0 then
  redis.call('SREM', KEYS[4], unpack(ids))
  redis.call('RPUSH', KEYS[2], unpack(ids))
  redis.call('DEL', KEYS[3])
  redis.call('LPUSH', KEYS[3], 1)
end
local left = redis.call('SCARD', KEYS[4])
if left == 0 then
  redis.call('ZREM', KEYS[1], KEYS[4])
  redis.call('DEL', KEYS[5])
  redis.call('DEL', KEYS[6])
end
return {#ids, left}
